/** fast-check generators of valid frames, and of frames with one thing wrong in them. */
import fc from 'fast-check';
import type { ChatMessage, Part, ServerFrame } from '../src/index.js';

const count = fc.nat(100_000);
const time = fc.nat(2_000_000_000_000);
const id = fc.string({ minLength: 1, maxLength: 12 });
const usage = fc.record({ promptTokens: count, completionTokens: count, totalTokens: count });

/**
 * A record's keys. Not `__proto__`, `constructor` or `prototype`: valibot's `record` skips
 * those keys unchecked where JSON Schema (and the browser's checker) checks them, a
 * difference only a value under such a key that is wrong anyway can show.
 */
const recordKey = fc
  .string({ maxLength: 12 })
  .filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k));
const jsonObject = fc.dictionary(recordKey, fc.jsonValue(), { maxKeys: 4 });

const toolApp = fc.record({ serverName: fc.string(), resourceUri: fc.string() });

/** An MCP form field: the kinds MCP allows, and anything else an MCP server might send. */
const formField = fc.oneof(
  fc.constantFrom(
    { type: 'string', title: 'Name', minLength: 1 },
    { type: 'string', format: 'email' },
    { type: 'integer', minimum: 1, maximum: 9 },
    { type: 'boolean', default: false },
    { type: 'string', enum: ['s', 'm', 'l'] },
    { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
  ),
  fc.dictionary(recordKey, fc.jsonValue(), { maxKeys: 3 }),
);

const elicitation = fc.record(
  {
    elicitationId: id,
    callId: id,
    serverName: fc.string(),
    mode: fc.constantFrom('form' as const, 'url' as const),
    message: fc.string(),
    requestedSchema: fc.record(
      {
        type: fc.constant('object' as const),
        properties: fc.dictionary(recordKey, formField, { maxKeys: 3 }),
        required: fc.array(fc.string(), { maxLength: 2 }),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
    url: fc.webUrl(),
    expiresAt: time,
    opened: fc.boolean(),
    completed: fc.boolean(),
  },
  { requiredKeys: ['elicitationId', 'callId', 'serverName', 'mode', 'message', 'expiresAt'] },
);

const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.string() }),
  fc.record({ type: fc.constant('reasoning' as const), text: fc.string() }),
  fc.record(
    {
      type: fc.constant('tool_call' as const),
      callId: id,
      index: count,
      name: fc.string(),
      arguments: fc.jsonValue(),
      status: fc.constantFrom('running' as const, 'done' as const, 'error' as const, 'unknown' as const),
      result: fc.jsonValue(),
      startedAt: time,
      endedAt: time,
      writingMs: count,
      progress: fc.record(
        { progress: count, total: count, message: fc.string() },
        { requiredKeys: ['progress'] },
      ),
      declined: fc.constantFrom('user' as const, 'expired' as const),
      app: toolApp,
    },
    { requiredKeys: ['type', 'callId', 'index', 'name', 'status', 'startedAt'] },
  ),
);

const message: fc.Arbitrary<ChatMessage> = fc.record(
  {
    id,
    role: fc.constantFrom('user' as const, 'assistant' as const),
    parts: fc.array(part, { maxLength: 4 }),
    createdAt: time,
    status: fc.constantFrom('complete' as const, 'aborted' as const, 'error' as const),
    error: fc.record(
      { code: fc.string(), message: fc.string(), errorId: fc.string() },
      { requiredKeys: ['code', 'message'] },
    ),
    usage,
    feedback: fc.record(
      { rating: fc.constantFrom('up' as const, 'down' as const), comment: fc.string() },
      { requiredKeys: ['rating'] },
    ),
    replaces: id,
    images: fc.array(
      fc.record({
        id,
        mimeType: fc.constantFrom(
          'image/png' as const,
          'image/jpeg' as const,
          'image/webp' as const,
          'image/gif' as const,
        ),
        width: count,
        height: count,
        bytes: count,
      }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ['id', 'role', 'parts', 'createdAt'] },
);

const turnStatus = {
  state: fc.constantFrom('waiting' as const, 'retrying' as const, 'saving' as const, 'unresponsive' as const),
  attempt: fc.integer({ min: 1, max: 10 }),
  retryInMs: count,
};

const progress = fc.record(
  {
    index: count,
    name: fc.string(),
    charsAccumulated: count,
    callId: fc.string(),
    argumentsDelta: fc.string(),
  },
  { requiredKeys: ['index', 'name', 'charsAccumulated'] },
);
const entry = fc.record(
  {
    index: count,
    name: fc.string(),
    charsAccumulated: count,
    callId: fc.string(),
    arguments: fc.string(),
    startedAt: time,
    updatedAt: time,
  },
  { requiredKeys: ['index', 'name', 'charsAccumulated', 'startedAt', 'updatedAt'] },
);

const approval = fc.record(
  {
    callId: id,
    index: count,
    name: fc.string(),
    arguments: fc.jsonValue(),
    policy: fc.constantFrom('always' as const, 'session' as const),
    expiresAt: time,
  },
  { requiredKeys: ['callId', 'index', 'name', 'policy', 'expiresAt'] },
);

export const serverFrame: fc.Arbitrary<ServerFrame> = fc.oneof(
  fc.record(
    {
      type: fc.constant('ready' as const),
      sessionId: id,
      serverTime: time,
      messages: fc.array(message, { maxLength: 3 }),
      resumed: fc.boolean(),
      hasMore: fc.boolean(),
      anonymousKey: fc.string(),
      welcome: fc.string(),
      starters: fc.array(fc.string(), { maxLength: 3 }),
      conversations: fc.constant(true),
      uploads: fc.record({
        ticket: fc.string(),
        expiresAt: time,
        maxBytes: count,
        maxCount: count,
        types: fc.subarray([
          'image/png' as const,
          'image/jpeg' as const,
          'image/webp' as const,
          'image/gif' as const,
        ]),
      }),
    },
    { requiredKeys: ['type', 'sessionId', 'serverTime', 'messages', 'resumed', 'hasMore'] },
  ),
  fc.record(
    { type: fc.constant('user_message' as const), sessionId: id, message, clientMessageId: id },
    { requiredKeys: ['type', 'sessionId', 'message'] },
  ),
  fc.record(
    {
      type: fc.constant('stream' as const),
      sessionId: id,
      contentDelta: fc.string(),
      reasoningDelta: fc.string(),
      toolCallProgress: progress,
      done: fc.boolean(),
      usage,
    },
    { requiredKeys: ['type', 'sessionId'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_execute' as const),
      sessionId: id,
      phase: fc.constantFrom('start' as const, 'progress' as const, 'end' as const),
      callId: id,
      index: count,
      name: fc.string(),
      arguments: fc.jsonValue(),
      result: fc.jsonValue(),
      isError: fc.boolean(),
      durationMs: count,
      writingMs: count,
      declined: fc.constantFrom('user' as const, 'expired' as const),
      progress: count,
      total: count,
      message: fc.string(),
      app: toolApp,
    },
    { requiredKeys: ['type', 'sessionId', 'phase', 'callId', 'index', 'name'] },
  ),
  fc.record(
    {
      type: fc.constant('stream_resume' as const),
      sessionId: id,
      serverTime: time,
      parts: fc.array(part, { maxLength: 4 }),
      toolCallsProgress: fc.array(entry, { maxLength: 3 }),
      usage,
      turnStatus: fc.record({ ...turnStatus, since: time }, { requiredKeys: ['state', 'since'] }),
      approvals: fc.array(approval, { maxLength: 2 }),
      elicitations: fc.array(elicitation, { maxLength: 2 }),
    },
    { requiredKeys: ['type', 'sessionId', 'serverTime', 'parts', 'toolCallsProgress'] },
  ),
  fc.record({ type: fc.constant('message' as const), sessionId: id, message }),
  fc.record(
    {
      type: fc.constant('error' as const),
      code: fc.string(),
      message: fc.string(),
      sessionId: id,
      errorId: id,
      clientMessageId: id,
      retryInMs: count,
      limit: fc.constantFrom(
        'visitor_turns',
        'visitor_tokens',
        'address_turns',
        'address_tokens',
        'server_tokens',
        'concurrent_turns',
      ),
      challenge: fc.record({
        provider: fc.constantFrom('turnstile' as const, 'hcaptcha' as const),
        siteKey: fc.string(),
        scriptUrl: fc.string(),
      }),
      elicitationId: id,
    },
    { requiredKeys: ['type', 'code', 'message'] },
  ),
  fc.record(
    { type: fc.constant('turn_status' as const), sessionId: id, ...turnStatus },
    { requiredKeys: ['type', 'sessionId', 'state'] },
  ),
  approval.map((a) => ({ type: 'tool_approval_request' as const, sessionId: 'session-1', ...a })),
  fc.record({
    type: fc.constant('history' as const),
    sessionId: id,
    messages: fc.array(message, { maxLength: 3 }),
    hasMore: fc.boolean(),
  }),
  fc.record({
    type: fc.constant('feedback' as const),
    sessionId: id,
    messageId: id,
    rating: fc.constantFrom('up' as const, 'down' as const),
  }),
  fc.record({
    type: fc.constant('sessions' as const),
    sessions: fc.array(fc.record({ id, title: fc.string(), lastActivity: time }), { maxLength: 3 }),
  }),
  fc.record({ type: fc.constant('session_deleted' as const), sessionId: id }),
  elicitation.map((e) => ({ type: 'elicitation' as const, sessionId: 'session-1', ...e })),
  fc.record(
    {
      type: fc.constant('elicitation_settled' as const),
      sessionId: id,
      elicitationId: id,
      action: fc.constantFrom('accept' as const, 'decline' as const, 'cancel' as const),
      reason: fc.constantFrom('expired' as const, 'stopped' as const),
    },
    { requiredKeys: ['type', 'sessionId', 'elicitationId', 'action'] },
  ),
  fc.record({ type: fc.constant('elicitation_complete' as const), sessionId: id, elicitationId: id }),
  fc.record(
    {
      type: fc.constant('app_tool_result' as const),
      requestId: id,
      result: fc.oneof(
        jsonObject,
        fc.record(
          {
            content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }), { maxLength: 2 }),
            structuredContent: jsonObject,
            isError: fc.boolean(),
          },
          { requiredKeys: ['content'] },
        ),
      ),
      error: fc.string(),
    },
    { requiredKeys: ['type', 'requestId'] },
  ),
);

export const clientFrame = fc.oneof(
  fc.record(
    {
      type: fc.constant('hello'),
      protocol: fc.constant(1),
      sessionId: fc.string({ maxLength: 64 }),
      token: fc.string(),
      anonymousKey: fc.string({ maxLength: 200 }),
      challenge: fc.string({ minLength: 1, maxLength: 4096 }),
    },
    { requiredKeys: ['type', 'protocol'] },
  ),
  fc.record(
    {
      type: fc.constant('send'),
      text: fc.string({ minLength: 1, maxLength: 200 }),
      clientMessageId: fc.string({ maxLength: 64 }),
      images: fc.array(fc.string({ maxLength: 64 }), { minLength: 1, maxLength: 16 }),
    },
    { requiredKeys: ['type', 'text'] },
  ),
  fc.record({ type: fc.constant('abort') }),
  fc.record(
    {
      type: fc.constant('history'),
      before: fc.string({ maxLength: 64 }),
      limit: fc.integer({ min: 1, max: 100 }),
    },
    { requiredKeys: ['type', 'before'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_decision'),
      callId: fc.string({ minLength: 1, maxLength: 128 }),
      decision: fc.constantFrom('approve', 'deny'),
      remember: fc.constant('session'),
    },
    { requiredKeys: ['type', 'callId', 'decision'] },
  ),
  fc.record(
    {
      type: fc.constant('elicitation_answer'),
      elicitationId: fc.string({ maxLength: 64 }),
      action: fc.constantFrom('accept', 'decline', 'cancel'),
      content: fc.dictionary(
        recordKey,
        fc.oneof(
          fc.string(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.boolean(),
          fc.array(fc.string()),
        ),
        { maxKeys: 4 },
      ),
    },
    { requiredKeys: ['type', 'elicitationId', 'action'] },
  ),
  fc.record(
    {
      type: fc.constant('app_tool_call'),
      requestId: fc.string({ maxLength: 128 }),
      callId: fc.string({ maxLength: 128 }),
      name: fc.string({ maxLength: 128 }),
      arguments: jsonObject,
    },
    { requiredKeys: ['type', 'requestId', 'callId', 'name'] },
  ),
);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside `value` (not the root itself). */
function paths(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => {
    const here = [...prefix, key];
    return [here, ...paths((value as Record<string | number, Json>)[key] as Json, here)];
  });
}

/** The frame with one value somewhere inside replaced by arbitrary JSON, or removed. */
export function mutated(frames: fc.Arbitrary<unknown>): fc.Arbitrary<Json> {
  return fc
    .tuple(frames, fc.nat(), fc.option(fc.jsonValue(), { nil: undefined }))
    .map(([frame, pick, replacement]) => {
      const copy = JSON.parse(JSON.stringify(frame)) as Json;
      const all = paths(copy);
      const path = all[pick % all.length]!;
      let parent = copy as Record<string | number, Json>;
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
      const last = path[path.length - 1]!;
      if (replacement === undefined && !Array.isArray(parent)) delete parent[last];
      else parent[last] = (replacement ?? null) as Json;
      return copy;
    });
}
