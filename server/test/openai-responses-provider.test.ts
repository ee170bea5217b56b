/**
 * OpenAI's Responses API through the real provider and the real `openai` SDK
 * (`responses.create`), against a fake upstream that writes the wire format in random
 * pieces. What is expected of each fixture is read straight from its SSE text here, not
 * from the code under test.
 */
import type { ToolCall, ToolCallProgress } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { ProviderError } from '../src/providers/core/errors.js';
import { ConfigError, providerFromEnv } from '../src/providers/from-env.js';
import {
  OpenAIResponsesProvider,
  toResponsesInput,
  type OpenAIResponsesProviderOptions,
} from '../src/providers/openai-responses/index.js';
import type { ModelMessage, ProviderChunk, RoundReplay } from '../src/providers/core/types.js';
import { fixture, startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import { FAST_RETRY, drain, expectRound, progressOf, request, textOf } from './provider-helpers.js';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function providerFor(replies: Reply[], options: Partial<OpenAIResponsesProviderOptions> = {}) {
  upstream = await startFakeUpstream(replies);
  return new OpenAIResponsesProvider({
    apiKey: 'test-key',
    baseURL: `${upstream.url}/v1`,
    retry: FAST_RETRY,
    ...options,
  });
}

const equivalent = (name: string) => fixture(`equivalent/${name}/responses.sse`);
const QUIRK = 'responses-quirks/arguments-without-deltas.sse';

interface ResponsesItem {
  id?: string;
  type: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  status?: string;
  encrypted_content?: string | null;
  content?: unknown[];
  summary?: unknown[];
}

/** One Responses stream event, as loosely as this reading needs it. */
interface ResponsesEvent {
  type: string;
  item?: ResponsesItem;
  item_id?: string;
  delta?: string;
  arguments?: string;
  summary_index?: number;
  code?: string | null;
  message?: string;
  response?: {
    usage?: { input_tokens: number; output_tokens: number; total_tokens: number } | null;
    error?: { code: string; message: string } | null;
    incomplete_details?: { reason: string } | null;
  };
}

function sseEvents(text: string): ResponsesEvent[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .filter((lines) => lines.length)
    .map((lines) => JSON.parse(lines.map((line) => line.slice(6)).join('\n')) as ResponsesEvent);
}

/**
 * What a Responses stream should produce, read from its SSE text: a card (0 chars) per
 * function_call item added, a progress per arguments delta with the running length, the
 * rest of the arguments counted when only the final event has them, text, reasoning from
 * summaries (a blank line between parts) or raw reasoning text, the reasoning items to send
 * back, and the usage.
 */
function expectedFromResponsesSse(text: string) {
  const progress: ToolCallProgress[] = [];
  const calls = new Map<string, ToolCall>();
  const replay: unknown[] = [];
  let content = '';
  let reasoning = '';
  let usage: { promptTokens: number; completionTokens: number; totalTokens: number } | undefined;
  let end: string | undefined;
  const grow = (call: ToolCall, to: string) => {
    call.arguments = to;
    progress.push({ index: call.index, name: call.name, charsAccumulated: to.length });
  };
  const finalArguments = (itemId: string, final: string) => {
    const call = calls.get(itemId)!;
    if (final.length > call.arguments.length) grow(call, final);
  };
  for (const event of sseEvents(text)) {
    switch (event.type) {
      case 'response.output_item.added':
        if (event.item!.type === 'function_call') {
          const item = event.item!;
          const call = { index: calls.size, id: item.call_id!, name: item.name!, arguments: '' };
          calls.set(item.id!, call);
          progress.push({ index: call.index, name: call.name, charsAccumulated: 0 });
          if (item.arguments) grow(call, item.arguments);
        }
        break;
      case 'response.function_call_arguments.delta': {
        const call = calls.get(event.item_id!)!;
        if (event.delta) grow(call, call.arguments + event.delta);
        break;
      }
      case 'response.function_call_arguments.done':
        finalArguments(event.item_id!, event.arguments!);
        break;
      case 'response.output_item.done':
        if (event.item!.type === 'function_call') finalArguments(event.item!.id!, event.item!.arguments!);
        if (
          event.item!.type === 'reasoning' &&
          (event.item!.encrypted_content || event.item!.content?.length)
        ) {
          const { status: _status, ...item } = event.item!;
          replay.push(item);
        }
        break;
      case 'response.output_text.delta':
        content += event.delta;
        break;
      case 'response.reasoning_summary_part.added':
        if (event.summary_index! > 0) reasoning += '\n\n';
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        reasoning += event.delta;
        break;
      case 'response.completed': {
        const u = event.response!.usage!;
        usage = {
          promptTokens: u.input_tokens,
          completionTokens: u.output_tokens,
          totalTokens: u.total_tokens,
        };
        end = event.type;
        break;
      }
      case 'response.failed':
      case 'response.incomplete':
      case 'error':
        end = event.type;
        break;
    }
  }
  return { progress, content, reasoning, toolCalls: [...calls.values()], replay, usage, end };
}

const lastOf = (chunks: ProviderChunk[]): ProviderChunk => chunks.at(-1)!;

describe('the equivalent fixtures through the real provider', () => {
  test.each(['text-answer', 'text-then-tool', 'two-tools', 'thinking-then-tool'])(
    '%s: text, reasoning, a card per function_call, absolute counts, then one done with calls and usage',
    async (name) => {
      const bytes = equivalent(name);
      const expected = expectedFromResponsesSse(bytes.toString('utf8'));
      expect(expected.end).toBe('response.completed');
      // Written in 97 pieces that split events, JSON and UTF-8 characters anywhere.
      const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
      expect(error).toBeUndefined();
      expectRound(chunks, expected, /^call_/);
      expect(chunks.at(-1)!.usage?.promptTokens).toBe(412);
    },
  );

  test('two-tools: the calls are the ones in the stream, whole', async () => {
    const { chunks } = await drain(await providerFor([{ body: equivalent('two-tools'), pieces: 41 }]));
    expect(lastOf(chunks).toolCalls!.map((c) => [c.index, c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      [0, 'call_4zlq5XTelokUmsR1USKaBF5j', 'get_weather', { location: 'Paris, France', unit: 'celsius' }],
      [1, 'call_TsK7g2ehmD4ge7FVHrjjoDi3', 'get_weather', { location: '東京, 日本', unit: 'celsius' }],
    ]);
  });

  test('thinking-then-tool: the done chunk hands back the reasoning item, encrypted content and all', async () => {
    const text = equivalent('thinking-then-tool').toString('utf8');
    const { chunks, error } = await drain(
      await providerFor([{ body: equivalent('thinking-then-tool'), pieces: 97 }]),
    );
    expect(error).toBeUndefined();
    const encrypted = /"encrypted_content":"([^"]+)"/.exec(text)![1]!;
    const summary =
      'The user wants a short plan file. I should write it to notes/plan.md with two steps — 先读规范，再写测试。';
    const replay: RoundReplay = {
      provider: 'openai-responses',
      items: [
        {
          id: 'rs_0f7efd95ae81520845806eb386245d89e459d101c4a5d03e5d',
          type: 'reasoning',
          encrypted_content: encrypted,
          summary: [{ type: 'summary_text', text: summary }],
        },
      ],
    };
    expect(lastOf(chunks).replay).toEqual(replay);
    expect(expectedFromResponsesSse(text).replay).toEqual(replay.items);
    expect(textOf(chunks, 'reasoningDelta')).toBe(summary);
    expect(chunks.slice(0, -1).some((c) => 'replay' in c)).toBe(false);
  });

  test('a round without reasoning hands back nothing', async () => {
    const { chunks } = await drain(await providerFor([{ body: equivalent('text-then-tool') }]));
    expect(lastOf(chunks)).not.toHaveProperty('replay');
  });

  test('error-mid-call (response.failed): the progress shown, then the reason, no done', async () => {
    const bytes = equivalent('error-mid-call');
    const expected = expectedFromResponsesSse(bytes.toString('utf8'));
    expect(expected.end).toBe('response.failed');
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(progressOf(chunks)).toHaveLength(4);
    expect(textOf(chunks, 'contentDelta')).toBe(expected.content);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'upstream' });
    expect((error as Error).message).toMatch(/server_error/);
    expect((error as Error).message).toMatch(/The server had an error while processing your request/);
    expect(upstream!.requests).toHaveLength(1);
  });

  test('max-tokens-in-tool (response.incomplete): the progress shown, then an error naming the limit, no done', async () => {
    const bytes = equivalent('max-tokens-in-tool');
    const expected = expectedFromResponsesSse(bytes.toString('utf8'));
    expect(expected.end).toBe('response.incomplete');
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/max_output_tokens/);
    expect((error as Error).message).toMatch(/AALIS_MAX_OUTPUT_TOKENS/);
  });

  test('response.incomplete for another reason says that reason', async () => {
    const body = equivalent('max-tokens-in-tool')
      .toString('utf8')
      .replace('"reason":"max_output_tokens"', '"reason":"content_filter"');
    const { chunks, error } = await drain(await providerFor([{ body, pieces: 17 }]));
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toMatchObject({ kind: 'upstream', message: expect.stringMatching(/content_filter/) });
  });

  test('no-final-event: the progress shown, then a cut-off error, no done', async () => {
    const bytes = equivalent('no-final-event');
    const expected = expectedFromResponsesSse(bytes.toString('utf8'));
    expect(expected.end).toBeUndefined();
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(progressOf(chunks).at(-1)!.charsAccumulated).toBeGreaterThan(0);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toMatchObject({
      kind: 'upstream',
      message: expect.stringMatching(/broke off before the model finished/),
    });
  });

  /** text-then-tool up to its third argument delta, then an `error` event. */
  const withErrorEvent = (data: Record<string, unknown>) => {
    const events = equivalent('text-then-tool').toString('utf8').split('\n\n');
    const cut = events.findIndex((e) => e.includes('"delta":"\\":\\""'));
    expect(cut).toBeGreaterThan(0);
    return [...events.slice(0, cut + 1), `event: error\ndata: ${JSON.stringify(data)}`, ''].join('\n\n');
  };

  test.each([
    [
      'code and message at the top (as documented)',
      {
        type: 'error',
        sequence_number: 14,
        code: 'server_error',
        message: 'The model is overloaded',
        param: null,
      },
    ],
    [
      'an error object',
      {
        type: 'error',
        sequence_number: 14,
        error: {
          type: 'server_error',
          code: 'server_error',
          message: 'The model is overloaded',
          param: null,
        },
      },
    ],
  ])('an error event mid-stream, %s: the progress shown, then the reason, no done', async (_shape, data) => {
    const { chunks, error } = await drain(await providerFor([{ body: withErrorEvent(data), pieces: 29 }]));
    expect(progressOf(chunks).map((p) => p.charsAccumulated)).toEqual([0, 2, 7, 10]);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'upstream',
      message: expect.stringMatching(/The model is overloaded/),
    });
    expect(upstream!.requests).toHaveLength(1);
  });
});

describe('a compatible server that sends the arguments only at the end', () => {
  test('each card ends at the full length, the calls are whole, raw reasoning is reasoning and goes back', async () => {
    const bytes = fixture(QUIRK);
    const expected = expectedFromResponsesSse(bytes.toString('utf8'));
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 61 }]));
    expect(error).toBeUndefined();
    const time = '{"zone":"Europe/Oslo"}';
    const weather = '{"location":"Oslo, 挪威","unit":"celsius"}';
    const docs = '{"query":"流式 tool call","limit":5}';
    // Written out by hand too: one card, then the whole length once (no double counting).
    expect(progressOf(chunks)).toEqual([
      { index: 0, name: 'get_time', charsAccumulated: 0 },
      { index: 0, name: 'get_time', charsAccumulated: time.length },
      { index: 1, name: 'get_weather', charsAccumulated: 0 },
      { index: 1, name: 'get_weather', charsAccumulated: weather.length },
      { index: 2, name: 'search_docs', charsAccumulated: 0 },
      { index: 2, name: 'search_docs', charsAccumulated: '{"query":"流式'.length },
      { index: 2, name: 'search_docs', charsAccumulated: docs.length },
    ]);
    expect(progressOf(chunks)).toEqual(expected.progress);
    const done = lastOf(chunks);
    expect(done.toolCalls).toEqual([
      { index: 0, id: 'call_a1', name: 'get_time', arguments: time },
      { index: 1, id: 'call_b2', name: 'get_weather', arguments: weather },
      { index: 2, id: 'call_c3', name: 'search_docs', arguments: docs },
    ]);
    expect(textOf(chunks, 'contentDelta')).toBe('Checking three things.');
    const reasoning = 'Need the time in Oslo, the weather there, and the docs — 三个调用.';
    expect(textOf(chunks, 'reasoningDelta')).toBe(reasoning);
    expect(done.usage).toEqual({ promptTokens: 230, completionTokens: 88, totalTokens: 318 });
    // The raw reasoning item goes back, without its status.
    expect(done.replay).toEqual({ provider: 'openai-responses', items: expected.replay });
    expect(done.replay!.items).toEqual([
      {
        id: 'rs_5f2a9c7e1d3b4a6f',
        type: 'reasoning',
        summary: [],
        content: [{ type: 'reasoning_text', text: reasoning }],
        encrypted_content: null,
      },
    ]);
  });
});

describe('two reasoning items in one response', () => {
  /** A response with two reasoning items (the second with two summary parts), then text. */
  function twoReasoningItems(): string {
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
    const response = (status: string, usage: unknown = null) => ({
      id: 'resp_2r',
      object: 'response',
      created_at: 1764610000,
      status,
      model: 'gpt-5-mini-2025-08-07',
      output: [],
      usage,
    });
    const reasoning = (id: string, output_index: number, texts: string[]) => [
      event('response.output_item.added', { output_index, item: { id, type: 'reasoning', summary: [] } }),
      ...texts.flatMap((text, summary_index) => [
        event('response.reasoning_summary_part.added', {
          item_id: id,
          output_index,
          summary_index,
          part: { type: 'summary_text', text: '' },
        }),
        event('response.reasoning_summary_text.delta', {
          item_id: id,
          output_index,
          summary_index,
          delta: text,
        }),
      ]),
      event('response.output_item.done', {
        output_index,
        item: {
          id,
          type: 'reasoning',
          encrypted_content: `gAAAA-${id}`,
          summary: texts.map((text) => ({ type: 'summary_text', text })),
        },
      }),
    ];
    return [
      event('response.created', { response: response('in_progress') }),
      ...reasoning('rs_a', 0, ['**Reading** the question.']),
      ...reasoning('rs_b', 1, ['**Checking** the sources.', '**Answering** briefly.']),
      event('response.output_item.added', {
        output_index: 2,
        item: { id: 'msg_c', type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      }),
      event('response.output_text.delta', {
        item_id: 'msg_c',
        output_index: 2,
        content_index: 0,
        delta: 'Done.',
      }),
      event('response.completed', {
        response: response('completed', { input_tokens: 20, output_tokens: 30, total_tokens: 50 }),
      }),
    ].join('');
  }

  test('both items go back, in order', async () => {
    const { chunks, error } = await drain(await providerFor([{ body: twoReasoningItems(), pieces: 23 }]));
    expect(error).toBeUndefined();
    expect(lastOf(chunks).replay?.items.map((item) => (item as { id: string }).id)).toEqual(['rs_a', 'rs_b']);
    expect(textOf(chunks, 'reasoningDelta')).toContain('**Checking** the sources.\n\n**Answering** briefly.');
  });

  // summary_index restarts at 0 in every reasoning item: the paragraph break must not depend on it.
  test('every summary part, in whichever item, is a paragraph of its own', async () => {
    const { chunks } = await drain(await providerFor([{ body: twoReasoningItems(), pieces: 23 }]));
    expect(textOf(chunks, 'reasoningDelta')).toBe(
      '**Reading** the question.\n\n**Checking** the sources.\n\n**Answering** briefly.',
    );
  });
});

describe('the follow-up request', () => {
  const reasoningItem = {
    id: 'rs_0f7efd95ae81520845806eb386245d89e459d101c4a5d03e5d',
    type: 'reasoning',
    encrypted_content: 'gAAAAABp2tedB4itgnb05DR84DIalE',
    summary: [{ type: 'summary_text', text: 'Plan first, then the logo.' }],
  };
  const tools = [
    {
      name: 'write_file',
      description: 'Write a UTF-8 text file in the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    { name: 'render_logo', description: 'Render the logo.', parameters: { type: 'object', properties: {} } },
  ];
  const conversation = (replay: RoundReplay): ModelMessage[] => [
    { role: 'system', content: 'Be brief.' },
    { role: 'system', content: 'Answer in English.' },
    { role: 'user', content: 'Write the plan and show me the logo.' },
    {
      role: 'assistant',
      content: 'On it.',
      replay,
      toolCalls: [
        { id: 'call_A', index: 0, name: 'write_file', arguments: '{"path":"notes/plan.md"}' },
        { id: 'call_B', index: 1, name: 'render_logo', arguments: '{}' },
      ],
    },
    { role: 'tool', toolCallId: 'call_A', name: 'write_file', content: 'Error: disk full', isError: true },
    {
      role: 'tool',
      toolCallId: 'call_B',
      name: 'render_logo',
      content: 'Rendered.',
      images: [{ mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' }],
    },
  ];

  test('instructions, the whole conversation as items with reasoning first, store false, tools not strict', async () => {
    const provider = await providerFor([{ body: equivalent('text-answer') }]);
    const { error } = await drain(
      provider,
      request({
        model: 'gpt-5-mini',
        tools,
        messages: conversation({ provider: 'openai-responses', items: [reasoningItem] }),
      }),
    );
    expect(error).toBeUndefined();
    const sent = upstream!.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer test-key');
    const body = sent.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'gpt-5-mini',
      instructions: 'Be brief.\n\nAnswer in English.',
      store: false,
      stream: true,
    });
    expect(body).not.toHaveProperty('max_output_tokens');
    expect(body.tools).toEqual(
      tools.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        strict: false,
      })),
    );
    expect(body.input).toEqual([
      { role: 'user', content: 'Write the plan and show me the logo.' },
      reasoningItem,
      { role: 'assistant', content: 'On it.' },
      { type: 'function_call', call_id: 'call_A', name: 'write_file', arguments: '{"path":"notes/plan.md"}' },
      { type: 'function_call', call_id: 'call_B', name: 'render_logo', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_A', output: 'Error: disk full' },
      {
        type: 'function_call_output',
        call_id: 'call_B',
        output: [
          { type: 'input_text', text: 'Rendered.' },
          expect.objectContaining({
            type: 'input_image',
            image_url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==',
          }),
        ],
      },
    ]);
  });

  test("another provider's replay is not sent", async () => {
    const provider = await providerFor([{ body: equivalent('text-answer') }]);
    const anthropic: RoundReplay = {
      provider: 'anthropic',
      items: [{ type: 'thinking', thinking: 'Plan first.', signature: 'EqQBCkYIBxgCKkDsig==' }],
    };
    await drain(provider, request({ model: 'gpt-5-mini', messages: conversation(anthropic) }));
    const body = upstream!.requests[0]!.body as { input: Array<Record<string, unknown>> };
    expect(body).not.toHaveProperty('tools');
    expect(body.input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'assistant',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
    expect(JSON.stringify(body)).not.toContain('signature');
  });

  test.each([
    ['gpt-5-mini', {}, { summary: 'auto' }],
    ['o4-mini', {}, { summary: 'auto' }],
    ['gpt-4o-mini', {}, undefined],
    ['gpt-5-chat-latest', {}, undefined],
    ['gpt-5-mini', { reasoning: 'off' as const }, undefined],
    ['gpt-5-mini', { reasoning: 'high' as const }, { effort: 'high', summary: 'auto' }],
    ['gpt-5-mini', { reasoning: 'default' as const }, { summary: 'auto' }],
  ])('model %s with %o asks for reasoning %o', async (model, options, reasoning) => {
    const provider = await providerFor([{ body: equivalent('text-answer') }], options);
    const { error } = await drain(provider, request({ model }));
    expect(error).toBeUndefined();
    const body = upstream!.requests[0]!.body as Record<string, unknown>;
    if (reasoning) {
      expect(body.reasoning).toEqual(reasoning);
      expect(body.include).toEqual(['reasoning.encrypted_content']);
    } else {
      expect(body).not.toHaveProperty('reasoning');
      expect(body).not.toHaveProperty('include');
    }
  });

  test('maxOutputTokens is sent as max_output_tokens', async () => {
    const provider = await providerFor([{ body: equivalent('text-answer') }], { maxOutputTokens: 2000 });
    await drain(provider);
    expect(upstream!.requests[0]!.body).toMatchObject({ max_output_tokens: 2000 });
  });
});

describe('failures and retries', () => {
  const textAnswer = () => ({ body: equivalent('text-answer'), pieces: 7 });

  test('429 then success: retried, and the answer streams once', async () => {
    const provider = await providerFor([
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: JSON.stringify({
          error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
        }),
      },
      textAnswer(),
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(upstream!.requests).toHaveLength(2);
    expect(textOf(chunks, 'contentDelta')).toBe(
      expectedFromResponsesSse(equivalent('text-answer').toString()).content,
    );
    expect(chunks.filter((c) => c.done)).toHaveLength(1);
  });

  test('401 is auth, with the provider message, and is not retried', async () => {
    const provider = await providerFor([
      {
        status: 401,
        body: JSON.stringify({
          error: {
            message: 'Incorrect API key provided: test-key.',
            type: 'invalid_request_error',
            code: 'invalid_api_key',
            param: null,
          },
        }),
      },
      textAnswer(),
    ]);
    const { error } = await drain(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'auth', options: { status: 401 } });
    expect((error as Error).message).toMatch(/Incorrect API key/);
    expect(upstream!.requests).toHaveLength(1);
  });

  test('abort while a call streams: aborted, no done, and the upstream connection is closed', async () => {
    const provider = await providerFor([{ body: equivalent('two-tools'), byEvent: true, delayMs: 20 }]);
    const controller = new AbortController();
    const chunks: ProviderChunk[] = [];
    let error: unknown;
    try {
      for await (const chunk of provider.chatStream(request(), { signal: controller.signal })) {
        chunks.push(chunk);
        if ((chunk.toolCallProgress?.charsAccumulated ?? 0) > 0) controller.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(progressOf(chunks).length).toBeLessThan(7);
    await upstream!.closedEarly;
  });
});

describe('choosing the Responses API from the environment', () => {
  test('AALIS_PROVIDER=openai-responses with OPENAI_API_KEY: its name, and gpt-5-mini', () => {
    const choice = providerFromEnv({ AALIS_PROVIDER: 'openai-responses', OPENAI_API_KEY: 'sk-test' });
    expect(choice.name).toBe('openai-responses');
    expect(choice.model).toBe('gpt-5-mini');
    expect(choice.provider).toBeInstanceOf(OpenAIResponsesProvider);
    expect(choice.provider.name).toBe('openai-responses');
  });

  test('AALIS_PROVIDER=openai-responses without OPENAI_API_KEY is refused, naming the variable', () => {
    expect(() => providerFromEnv({ AALIS_PROVIDER: 'openai-responses' })).toThrow(
      new ConfigError('OPENAI_API_KEY is required when AALIS_PROVIDER is openai-responses'),
    );
  });

  test('AALIS_REASONING=banana is refused, with the values it can be', () => {
    const env = { AALIS_PROVIDER: 'openai-responses', OPENAI_API_KEY: 'sk-test', AALIS_REASONING: 'banana' };
    expect(() => providerFromEnv(env)).toThrow(ConfigError);
    expect(() => providerFromEnv(env)).toThrow(
      /AALIS_REASONING.*off, default, none, minimal, low, medium, high.*"banana"/,
    );
  });

  test('the environment reaches the request: base URL, effort and output limit', async () => {
    upstream = await startFakeUpstream([{ body: equivalent('text-answer') }]);
    const { provider, model } = providerFromEnv({
      AALIS_PROVIDER: 'openai-responses',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      AALIS_REASONING: 'LOW',
      AALIS_MAX_OUTPUT_TOKENS: '3000',
    });
    const { chunks, error } = await drain(provider, request({ model }));
    expect(error).toBeUndefined();
    expect(lastOf(chunks).done).toBe(true);
    expect(upstream.requests[0]!.path).toBe('/v1/responses');
    expect(upstream.requests[0]!.body).toMatchObject({
      model: 'gpt-5-mini',
      reasoning: { effort: 'low', summary: 'auto' },
      max_output_tokens: 3000,
    });
  });
});

test("a question's images go as input_image parts with data URLs, after its text", () => {
  const { input } = toResponsesInput([
    { role: 'user', content: 'What is this?', images: [{ mimeType: 'image/webp', data: 'UklGR' }] },
    { role: 'user', content: 'And alone?' },
  ]);
  expect(input).toEqual([
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'What is this?' },
        { type: 'input_image', image_url: 'data:image/webp;base64,UklGR', detail: 'auto' },
      ],
    },
    { role: 'user', content: 'And alone?' },
  ]);
});
