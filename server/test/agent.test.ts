import type { ChatMessage, ChatStreamChunk, ToolCallPart } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { Agent, type AgentOptions, type ToolExecuteEvent } from '../src/agent/agent.js';
import type { ChatProvider } from '../src/providers/core/types.js';
import { openAIOn } from './provider-helpers.js';
import { ToolError, ToolRegistry, defineTool, type ToolDefinition } from '../src/tools/define-tool.js';
import { builtinTools } from '../src/tools/builtin/index.js';
import { Workspace } from '../src/tools/workspace.js';
import {
  completionChunk,
  fixture,
  sse,
  startFakeUpstream,
  usageChunk,
  textAnswer,
  type FakeUpstream,
  type Reply,
} from './fake-upstream.js';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const user = (text: string): ChatMessage => ({
  id: 'u1',
  role: 'user',
  parts: [{ type: 'text', text }],
  createdAt: 1,
});

/** A complete round that calls the given tools, as a real server streams it. */
function toolRound(calls: Array<{ id: string; name: string; arguments: string }>): string {
  return sse([
    completionChunk({ role: 'assistant', content: null }),
    ...calls.flatMap((call, index) => [
      completionChunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
      completionChunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }),
    ]),
    completionChunk({}, 'tool_calls'),
    usageChunk(10, 5),
  ]);
}
const textRound = (text: string) => textAnswer(text, 20, 3);

async function setUp(
  replies: Reply[],
  tools: ToolDefinition[] = builtinTools(),
  options: Partial<AgentOptions> = {},
) {
  upstream = await startFakeUpstream(replies);
  const provider = openAIOn(upstream.url);
  const logged: Array<{ err?: Error; errorId?: string; message: string }> = [];
  const logger = { error: (object: object, message: string) => logged.push({ ...object, message }) };
  const agent = new Agent({ provider, model: 'm', tools: new ToolRegistry(tools), logger, ...options });
  return { ...recordAgent(agent), logged };
}

/** The detail the log holds under an error id a visitor was given. */
const detailOf = (logged: Array<{ err?: Error; errorId?: string }>, errorId: string | undefined) =>
  logged.find((entry) => entry.errorId === errorId)?.err?.message;

function recordAgent(agent: Agent) {
  const streamed: ChatStreamChunk[] = [];
  const tools: ToolExecuteEvent[] = [];
  agent.on('outbound:stream', ({ sessionId, ...chunk }) => {
    expect(sessionId).toBe('s1');
    streamed.push(chunk);
  });
  agent.on('tool:execute', (event) => tools.push(event));
  const run = (text = 'go', signal = new AbortController().signal) =>
    agent.runTurn({ sessionId: 's1', history: [user(text)], signal, workspace: new Workspace() });
  return { agent, streamed, tools, run };
}

const sentMessages = (i: number) =>
  (upstream!.requests[i]!.body as { messages: Array<Record<string, unknown>> }).messages;
const toolParts = (message: ChatMessage) =>
  message.parts.filter((p): p is ToolCallPart => p.type === 'tool_call');

describe('a turn', () => {
  test('two rounds: the tools run, their results go back to the model, the answer ends the turn', async () => {
    const { run, streamed, tools } = await setUp([
      { body: fixture('openai-parallel-tool-calls.sse') },
      { body: fixture('openai-text-answer.sse') },
    ]);
    const { message, error } = await run('Weather in Paris and Tokyo?');
    expect(error).toBeUndefined();
    expect(message.status).toBe('complete');

    // Every provider chunk forwarded, progress included (20 fragments in the first round).
    expect(streamed.filter((c) => c.toolCallProgress)).toHaveLength(20);
    expect(streamed.filter((c) => c.done)).toHaveLength(2);
    expect(streamed.every((c) => !('toolCalls' in c))).toBe(true);

    expect(tools.map((t) => `${t.phase} ${t.callId}`).slice(0, 2)).toEqual([
      'start call_Wq1Zr8',
      'start call_Hk3Lm2',
    ]);
    expect(tools.filter((t) => t.phase === 'end').map((t) => t.isError)).toEqual([false, false]);
    // The arguments as the model wrote them: its text, not a value parsed and written out again.
    expect(tools[0]!.arguments).toBe('{"location":"Paris, France","unit":"celsius"}');

    const second = sentMessages(1);
    expect(second[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_Wq1Zr8' }, { id: 'call_Hk3Lm2' }],
    });
    expect(second.slice(2).map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_Wq1Zr8'],
      ['tool', 'call_Hk3Lm2'],
    ]);
    expect(JSON.parse(second[3]!.content as string)).toMatchObject({
      location: '东京, 日本',
      unit: 'celsius',
    });

    expect(message.parts.map((p) => p.type)).toEqual(['tool_call', 'tool_call', 'text']);
    expect(toolParts(message).map((p) => p.status)).toEqual(['done', 'done']);
    expect(message.usage).toEqual({
      promptTokens: 96 + 180,
      completionTokens: 52 + 41,
      totalTokens: 148 + 221,
    });
  });

  test('the same tool twice in one round, finishing in reverse order, is matched by callId', async () => {
    const slowFirst = defineTool({
      name: 'get_weather',
      description: 'w',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      execute: async ({ location }) => {
        await new Promise((r) => setTimeout(r, location.startsWith('Paris') ? 60 : 1));
        return `weather of ${location}`;
      },
    });
    const { run, tools } = await setUp(
      [{ body: fixture('openai-parallel-tool-calls.sse') }, { body: textRound('Done.') }],
      [slowFirst],
    );
    const { message } = await run();
    expect(tools.filter((t) => t.phase === 'end').map((t) => t.callId)).toEqual([
      'call_Hk3Lm2',
      'call_Wq1Zr8',
    ]);
    expect(toolParts(message).map((p) => [p.callId, p.result])).toEqual([
      ['call_Wq1Zr8', 'weather of Paris, France'],
      ['call_Hk3Lm2', 'weather of 东京, 日本'],
    ]);
  });

  test('abort while the arguments stream: nothing executes, the turn is aborted', async () => {
    const { run, tools, streamed } = await setUp([
      { body: fixture('openai-long-tool-call.sse'), pieces: 300, delayMs: 3 },
    ]);
    const controller = new AbortController();
    const turn = run('write it', controller.signal);
    while (streamed.filter((c) => c.toolCallProgress).length < 10) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const { message, error } = await turn;
    expect(message.status).toBe('aborted');
    expect(error).toBeUndefined();
    expect(tools).toEqual([]);
    expect(upstream!.requests).toHaveLength(1);
    await upstream!.closedEarly;
  });

  test('the upstream dies mid-tool-call: an upstream error, the partial call never runs nor goes back', async () => {
    const bytes = fixture('openai-long-tool-call.sse');
    const { run, tools, logged } = await setUp([
      { body: bytes, pieces: 40, delayMs: 2, breakAfterBytes: bytes.length >> 1 },
    ]);
    const { message, error } = await run();
    expect(message.status).toBe('error');
    // The visitor reads a short sentence and an id; the log holds the provider's words.
    expect(error).toEqual({
      code: 'upstream',
      message: 'the AI service failed to answer',
      errorId: expect.stringMatching(/^\w{8}$/),
    });
    expect(message.error).toEqual(error);
    expect(detailOf(logged, error?.errorId)).toMatch(/broke off/);
    expect(tools).toEqual([]);
    expect(toolParts(message)).toEqual([]);
    expect(upstream!.requests).toHaveLength(1);
  });

  test('429 then success: the turn completes as if nothing happened', async () => {
    const { run } = await setUp([
      { status: 429, headers: { 'retry-after': '0' }, body: '{"error":{"message":"slow down"}}' },
      { body: textRound('Hello!') },
    ]);
    const { message } = await run();
    expect(message).toMatchObject({ status: 'complete', parts: [{ type: 'text', text: 'Hello!' }] });
  });

  test('a malformed JSON line ends the turn with an upstream error; the log says what was wrong', async () => {
    const { run, logged } = await setUp([
      { body: sse([completionChunk({ content: 'Hi' })], { done: false }) + 'data: {nope\n\n' },
    ]);
    const { message, error } = await run();
    expect(error).toMatchObject({
      code: 'upstream',
      message: 'the AI service sent an answer that could not be read',
    });
    expect(detailOf(logged, error?.errorId)).toMatch(/not valid JSON/);
    expect(message).toMatchObject({ status: 'error', parts: [{ type: 'text', text: 'Hi' }] });
  });
});

describe('tools that go wrong', () => {
  const thrower = defineTool({
    name: 'flaky',
    description: 'fails',
    parameters: { type: 'object' },
    execute: () => {
      throw new Error('disk on fire');
    },
  });
  const hanger = defineTool({
    name: 'hang',
    description: 'never returns',
    parameters: { type: 'object' },
    timeoutMs: 100,
    execute: () => new Promise(() => {}),
  });

  test('a tool that throws: an error result the model reads, and the turn goes on', async () => {
    const { run, tools, logged } = await setUp(
      [{ body: toolRound([{ id: 'c1', name: 'flaky', arguments: '{}' }]) }, { body: textRound('Sorry.') }],
      [thrower],
    );
    const { message } = await run();
    // What the error says may name a server or a path: the log has it, nobody else.
    const result = tools.at(-1)?.result as string;
    expect(tools.at(-1)).toMatchObject({ phase: 'end', isError: true });
    expect(result).toMatch(/^the tool failed unexpectedly \(error id \w{8}\)$/);
    expect(detailOf(logged, /error id (\w+)/.exec(result)?.[1])).toBe('disk on fire');
    expect(sentMessages(1).at(-1)).toMatchObject({ role: 'tool', content: `Error: ${result}` });
    expect(message.status).toBe('complete');
    expect(toolParts(message)[0]).toMatchObject({ status: 'error', result });
    expect(JSON.stringify(message)).not.toContain('disk on fire');
  });

  test('a tool that hangs past its timeout is ended with a timeout error', async () => {
    const { run, tools } = await setUp(
      [
        { body: toolRound([{ id: 'c1', name: 'hang', arguments: '{}' }]) },
        { body: textRound('It timed out.') },
      ],
      [hanger],
    );
    const { message } = await run();
    const end = tools.find((t) => t.phase === 'end')!;
    expect(end).toMatchObject({ isError: true, result: 'timed out after 0.1 s' });
    expect(end.durationMs).toBeGreaterThanOrEqual(90);
    expect(message.status).toBe('complete');
  });

  test('abort while tools run ends them as aborted, with no further round', async () => {
    const { run, tools } = await setUp(
      [{ body: toolRound([{ id: 'c1', name: 'hang', arguments: '{}' }]) }],
      [{ ...hanger, timeoutMs: 60_000 }],
    );
    const controller = new AbortController();
    const turn = run('go', controller.signal);
    while (!tools.length) await new Promise((r) => setTimeout(r, 2));
    controller.abort();
    const { message } = await turn;
    expect(message.status).toBe('aborted');
    expect(tools.at(-1)).toMatchObject({ phase: 'end', isError: true, result: 'aborted' });
    expect(upstream!.requests).toHaveLength(1);
  });

  test('unknown tool, arguments that are not JSON, and arguments against the schema: errors the model can fix', async () => {
    const { run, tools } = await setUp([
      {
        body: toolRound([
          { id: 'c1', name: 'teleport', arguments: '{}' },
          { id: 'c2', name: 'calculator', arguments: '{"expression": "1+' },
          { id: 'c3', name: 'calculator', arguments: '{"expr": "1+1"}' },
          { id: 'c4', name: 'calculator', arguments: '{"expression": "2^10"}' },
        ]),
      },
      { body: textRound('Fixed.') },
    ]);
    const { message } = await run();
    const ends = tools.filter((t) => t.phase === 'end');
    expect(ends.map((t) => [t.callId, t.isError])).toEqual([
      ['c1', true],
      ['c2', true],
      ['c3', true],
      ['c4', false],
    ]);
    expect(ends[0]!.result).toMatch(
      /there is no tool named "teleport"; the tools are: get_weather, get_time, calculator/,
    );
    expect(ends[1]!.result).toMatch(/not valid JSON/);
    // The raw text is what the start event shows for arguments that do not parse.
    expect(tools.find((t) => t.callId === 'c2' && t.phase === 'start')!.arguments).toBe('{"expression": "1+');
    expect(ends[2]!.result).toMatch(/invalid arguments: arguments must have required property 'expression'/);
    expect(ends[3]!.result).toEqual({ expression: '2^10', result: 1024 });
    // Parsed once, to run the tool: the event, the history and the next request keep the
    // text as the model wrote it (its space included), and "" stands for {}.
    expect(tools.find((t) => t.callId === 'c4' && t.phase === 'start')!.arguments).toBe(
      '{"expression": "2^10"}',
    );
    const c4 = toolParts(message).find((p) => p.callId === 'c4')!;
    expect(c4.arguments).toBe('{"expression": "2^10"}');
    expect(sentMessages(1)[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [
        { id: 'c1', function: { arguments: '{}' } },
        { id: 'c2', function: { arguments: '{"expression": "1+' } },
        { id: 'c3', function: { arguments: '{"expr": "1+1"}' } },
        { id: 'c4', function: { arguments: '{"expression": "2^10"}' } },
      ],
    });
    expect(sentMessages(1).filter((m) => m.role === 'tool')).toHaveLength(4);
    expect(message.status).toBe('complete');
  });

  test('a model that never stops calling tools is stopped after the round limit', async () => {
    const round = { body: toolRound([{ id: 'c', name: 'get_time', arguments: '{}' }]) };
    const { run } = await setUp([round, round, round], builtinTools(), { maxRounds: 3 });
    const { message, error } = await run();
    expect(message.status).toBe('error');
    expect(error).toMatchObject({ code: 'max_rounds', message: expect.stringMatching(/after 3 rounds/) });
    expect(upstream!.requests).toHaveLength(3);
  });

  test('a ToolError message reaches the model as written', async () => {
    const picky = defineTool({
      name: 'picky',
      description: 'refuses',
      parameters: { type: 'object' },
      execute: () => {
        throw new ToolError('try a smaller file');
      },
    });
    const { run } = await setUp(
      [{ body: toolRound([{ id: 'c1', name: 'picky', arguments: '' }]) }, { body: textRound('ok') }],
      [picky],
    );
    await run();
    expect(sentMessages(1).at(-1)).toMatchObject({ role: 'tool', content: 'Error: try a smaller file' });
    // Arguments written as "" stand for {}, and go back as {}.
    expect(sentMessages(1)[1]).toMatchObject({ tool_calls: [{ function: { arguments: '{}' } }] });
  });
});

describe('progress-only chunks (the regression the spec names)', () => {
  const scripted = (chunks: ChatStreamChunk[]): ChatProvider => ({
    name: 'scripted',
    async *chatStream() {
      yield* chunks;
    },
  });
  const progress = (index: number, chars: number): ChatStreamChunk => ({
    toolCallProgress: { index, name: 'search_docs', charsAccumulated: chars },
  });
  const end: ChatStreamChunk = {
    done: true,
    usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
  };
  /** No error is expected here: one would show in the test's output. */
  const visibleLogger = { error: (object: object, message: string) => console.error(message, object) };

  test('between two text deltas they leave one merged text part and the same usage', async () => {
    const run = (chunks: ChatStreamChunk[]) =>
      recordAgent(
        new Agent({
          provider: scripted(chunks),
          model: 'm',
          tools: new ToolRegistry(),
          logger: visibleLogger,
        }),
      ).run();
    const plain = await run([{ contentDelta: 'Let me look. ' }, { contentDelta: 'Found it.' }, end]);
    const withProgress = await run([
      { contentDelta: 'Let me look. ' },
      progress(0, 0),
      progress(0, 9),
      progress(1, 4),
      { contentDelta: 'Found it.' },
      end,
    ]);
    expect(withProgress.message.parts).toEqual([{ type: 'text', text: 'Let me look. Found it.' }]);
    expect(withProgress.message.parts).toEqual(plain.message.parts);
    expect(withProgress.message.usage).toEqual(plain.message.usage);
  });
});
