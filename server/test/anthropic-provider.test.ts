/**
 * Anthropic's Messages API through the real provider and the real `@anthropic-ai/sdk`,
 * against a fake upstream that writes the wire format in random pieces. What is expected
 * of each fixture is read straight from its SSE text here, not from the code under test.
 */
import type { ToolCall, ToolCallProgress } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import {
  AnthropicProvider,
  toAnthropicMessages,
  type AnthropicProviderOptions,
} from '../src/providers/anthropic/index.js';
import { ProviderError } from '../src/providers/core/errors.js';
import { ConfigError, providerFromEnv } from '../src/providers/from-env.js';
import type { ModelMessage, ProviderChunk, RoundReplay } from '../src/providers/core/types.js';
import {
  fixture,
  startFakeUpstream,
  type FakeUpstream,
  type RecordedRequest,
  type Reply,
} from './fake-upstream.js';
import { FAST_RETRY, drain, expectRound, progressOf, request, textOf } from './provider-helpers.js';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function providerFor(replies: Reply[], options: Partial<AnthropicProviderOptions> = {}) {
  upstream = await startFakeUpstream(replies);
  return new AnthropicProvider({ apiKey: 'test-key', baseURL: upstream.url, retry: FAST_RETRY, ...options });
}

const equivalent = (name: string) => fixture(`equivalent/${name}/anthropic.sse`);

/** One Anthropic stream event, as loosely as this reading needs it. */
interface AnthropicEvent {
  type: string;
  index?: number;
  message?: { usage: Record<string, unknown> };
  content_block?: {
    type: string;
    id?: string;
    name?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    data?: string;
  };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
  };
  usage?: { output_tokens?: number };
  error?: { type: string; message: string };
}

interface Block {
  type: string;
  call?: ToolCall;
  thinking: string;
  signature: string;
  data: string;
}

/** The events of an SSE text: each `event:` with its `data:` parsed. */
function sseEvents(text: string): AnthropicEvent[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .filter((lines) => lines.length)
    .map((lines) => JSON.parse(lines.map((line) => line.slice(6)).join('\n')) as AnthropicEvent);
}

/**
 * What an Anthropic stream should produce, read from its SSE text: a card (0 chars) per
 * tool_use block and a progress per non-empty input_json_delta with the running length,
 * text and thinking deltas, the thinking blocks to send back, and the usage.
 */
function expectedFromAnthropicSse(text: string) {
  const progress: ToolCallProgress[] = [];
  const calls: ToolCall[] = [];
  const blocks = new Map<number, Block>();
  const replay: unknown[] = [];
  let content = '';
  let reasoning = '';
  let input = 0;
  let output = 0;
  let stopReason: string | undefined;
  let error: { type: string; message: string } | undefined;
  for (const event of sseEvents(text)) {
    const block = event.index === undefined ? undefined : blocks.get(event.index);
    switch (event.type) {
      case 'message_start': {
        const usage = event.message!.usage;
        input =
          Number(usage.input_tokens ?? 0) +
          Number(usage.cache_creation_input_tokens ?? 0) +
          Number(usage.cache_read_input_tokens ?? 0);
        output = Number(usage.output_tokens ?? 0);
        break;
      }
      case 'content_block_start': {
        const start = event.content_block!;
        const entry: Block = {
          type: start.type,
          thinking: start.thinking ?? '',
          signature: start.signature ?? '',
          data: start.data ?? '',
        };
        if (start.type === 'tool_use') {
          entry.call = { index: calls.length, id: start.id!, name: start.name!, arguments: '' };
          calls.push(entry.call);
          progress.push({ index: entry.call.index, name: entry.call.name, charsAccumulated: 0 });
        }
        content += start.type === 'text' ? (start.text ?? '') : '';
        reasoning += start.type === 'thinking' ? (start.thinking ?? '') : '';
        blocks.set(event.index!, entry);
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta!;
        if (delta.type === 'text_delta') content += delta.text;
        if (delta.type === 'thinking_delta') {
          reasoning += delta.thinking;
          block!.thinking += delta.thinking;
        }
        if (delta.type === 'signature_delta') block!.signature += delta.signature;
        if (delta.type === 'input_json_delta' && block?.call && delta.partial_json) {
          block.call.arguments += delta.partial_json;
          progress.push({
            index: block.call.index,
            name: block.call.name,
            charsAccumulated: block.call.arguments.length,
          });
        }
        break;
      }
      case 'content_block_stop':
        if (block?.type === 'thinking') {
          replay.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        }
        if (block?.type === 'redacted_thinking') replay.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'message_delta':
        stopReason = event.delta?.stop_reason ?? stopReason;
        output = event.usage?.output_tokens ?? output;
        break;
      case 'error':
        error = event.error;
        break;
    }
  }
  return {
    progress,
    content,
    reasoning,
    toolCalls: calls,
    replay,
    stopReason,
    error,
    usage: { promptTokens: input, completionTokens: output, totalTokens: input + output },
  };
}

/** The API key a request carried: `x-api-key`, or a bearer token (how @anthropic-ai/sdk 1.16 sends it). */
const apiKeyOf = (headers: RecordedRequest['headers']): string | undefined =>
  (headers['x-api-key'] as string | undefined) ?? headers.authorization?.replace(/^Bearer /, '');

const lastOf = (chunks: ProviderChunk[]): ProviderChunk => chunks.at(-1)!;

describe('the equivalent fixtures through the real provider', () => {
  test.each(['text-answer', 'text-then-tool', 'two-tools', 'thinking-then-tool'])(
    '%s: text, reasoning, a card per tool block, absolute counts, then one done with calls and usage',
    async (name) => {
      const bytes = equivalent(name);
      const expected = expectedFromAnthropicSse(bytes.toString('utf8'));
      // Written in 97 pieces that split events, JSON and UTF-8 characters anywhere.
      const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
      expect(error).toBeUndefined();
      expectRound(chunks, expected, /^toolu_/);
      expect(chunks.at(-1)!.usage?.promptTokens).toBe(412);
    },
  );

  test('text-then-tool and two-tools: the calls are the ones in the stream, whole', async () => {
    const { chunks } = await drain(await providerFor([{ body: equivalent('two-tools'), pieces: 41 }]));
    expect(lastOf(chunks).toolCalls!.map((c) => [c.index, c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      [0, 'toolu_01idPp4DFZbZKXACuSvQ8xMU', 'get_weather', { location: 'Paris, France', unit: 'celsius' }],
      [1, 'toolu_01VK53NixDNikunaKZQWEPUR', 'get_weather', { location: '東京, 日本', unit: 'celsius' }],
    ]);
    await upstream!.close();
    const { chunks: other } = await drain(
      await providerFor([{ body: equivalent('text-then-tool'), pieces: 41 }]),
    );
    expect(JSON.parse(lastOf(other).toolCalls![0]!.arguments)).toEqual({ query: '流式 tool call', limit: 5 });
  });

  test('thinking-then-tool: the done chunk hands back the signed thinking and the redacted block, unchanged', async () => {
    const text = equivalent('thinking-then-tool').toString('utf8');
    const { chunks, error } = await drain(
      await providerFor([{ body: equivalent('thinking-then-tool'), pieces: 97 }]),
    );
    expect(error).toBeUndefined();
    const signature = /"signature":"([^"]+)"/.exec(text)![1]!;
    const redacted = /"type":"redacted_thinking","data":"([^"]+)"/.exec(text)![1]!;
    const thinking =
      'The user wants a short plan file. I should write it to notes/plan.md with two steps — 先读规范，再写测试。';
    const replay: RoundReplay = {
      provider: 'anthropic',
      items: [
        { type: 'thinking', thinking, signature },
        { type: 'redacted_thinking', data: redacted },
      ],
    };
    expect(lastOf(chunks).replay).toEqual(replay);
    expect(expectedFromAnthropicSse(text).replay).toEqual(replay.items);
    // Redacted thinking adds no text: the reasoning shown is the thinking block's alone.
    expect(textOf(chunks, 'reasoningDelta')).toBe(thinking);
    // Nothing but the done chunk carries it.
    expect(chunks.slice(0, -1).some((c) => 'replay' in c)).toBe(false);
  });

  test('a round without thinking hands back nothing', async () => {
    const { chunks } = await drain(await providerFor([{ body: equivalent('text-then-tool') }]));
    expect(lastOf(chunks)).not.toHaveProperty('replay');
  });

  test('error-mid-call: the progress shown, then an upstream error that says overloaded, no done', async () => {
    const bytes = equivalent('error-mid-call');
    const expected = expectedFromAnthropicSse(bytes.toString('utf8'));
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(expected.error?.type).toBe('overloaded_error');
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(progressOf(chunks).length).toBe(4);
    expect(textOf(chunks, 'contentDelta')).toBe(expected.content);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'upstream', message: expect.stringMatching(/overloaded/i) });
    // Mid-stream: never replayed.
    expect(upstream!.requests).toHaveLength(1);
  });

  test('no-final-event: the progress shown, then a cut-off error, no done', async () => {
    const bytes = equivalent('no-final-event');
    const expected = expectedFromAnthropicSse(bytes.toString('utf8'));
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(progressOf(chunks).at(-1)!.charsAccumulated).toBeGreaterThan(0);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: 'upstream',
      message: expect.stringMatching(/broke off before the model finished/),
    });
  });

  test('max-tokens-in-tool: the progress shown, then an error naming the output limit, no done', async () => {
    const bytes = equivalent('max-tokens-in-tool');
    const expected = expectedFromAnthropicSse(bytes.toString('utf8'));
    expect(expected.stopReason).toBe('max_tokens');
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/max_tokens/);
    expect((error as ProviderError).message).toMatch(/output limit/);
    expect((error as ProviderError).message).toMatch(/AALIS_MAX_OUTPUT_TOKENS/);
  });

  test('max_tokens in a message without tool calls is a (short) answer, not an error', async () => {
    const body = equivalent('text-answer')
      .toString('utf8')
      .replace('"stop_reason":"end_turn"', '"stop_reason":"max_tokens"');
    const { chunks, error } = await drain(await providerFor([{ body, pieces: 11 }]));
    expect(error).toBeUndefined();
    expect(lastOf(chunks)).toMatchObject({ done: true });
    expect(textOf(chunks, 'contentDelta')).toBe(expectedFromAnthropicSse(body).content);
  });
});

describe('quirks of the real API', () => {
  const name = 'anthropic-quirks/server-tool-and-empty-inputs.sse';

  test('a server tool and its result are ignored, empty input_json_delta counts nothing, cache tokens count as input', async () => {
    const bytes = fixture(name);
    const expected = expectedFromAnthropicSse(bytes.toString('utf8'));
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 53 }]));
    expect(error).toBeUndefined();
    // Written out by hand as well, so the reading above cannot hide a mistake.
    const weather = '{"location": "Oslo, 挪威"}';
    expect(progressOf(chunks)).toEqual([
      { index: 0, name: 'get_time', charsAccumulated: 0 },
      { index: 1, name: 'get_weather', charsAccumulated: 0 },
      { index: 1, name: 'get_weather', charsAccumulated: '{"location": '.length },
      { index: 1, name: 'get_weather', charsAccumulated: weather.length },
    ]);
    expect(progressOf(chunks)).toEqual(expected.progress);
    // No card for web_search, and none of its query shown as text.
    expect(progressOf(chunks).some((p) => p.name === 'web_search')).toBe(false);
    expect(textOf(chunks, 'contentDelta')).toBe('Oslo is sunny ☀️; checking the clock.');
    const done = lastOf(chunks);
    expect(done.toolCalls).toHaveLength(2);
    expect(done.toolCalls![0]).toMatchObject({
      index: 0,
      id: 'toolu_01Jx8Hq2WmZr5TnVb3CeLd7K',
      name: 'get_time',
    });
    // A tool with no input: nothing or an empty object, never anything else.
    expect(['', '{}']).toContain(done.toolCalls![0]!.arguments);
    expect(done.toolCalls![1]).toEqual({
      index: 1,
      id: 'toolu_01Mn4Pq6RsTu8VwXy0ZaBc2D',
      name: 'get_weather',
      arguments: weather,
    });
    // 12 fresh + 200 written to the cache + 300 read from it.
    expect(done.usage).toEqual({ promptTokens: 512, completionTokens: 96, totalTokens: 608 });
    expect(done).not.toHaveProperty('replay');
  });
});

describe('the follow-up request', () => {
  const replay: RoundReplay = {
    provider: 'anthropic',
    items: [
      { type: 'thinking', thinking: 'Plan first, then the logo.', signature: 'EqQBCkYIBxgCKkDsig==' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgyTERGV9u3apXRVB' },
    ],
  };
  const tools = [
    {
      name: 'write_file',
      description: 'Write a UTF-8 text file in the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    { name: 'render_logo', description: 'Render the logo.', parameters: { type: 'object', properties: {} } },
  ];
  const conversation = (assistantReplay: RoundReplay): ModelMessage[] => [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Write the plan and show me the logo.' },
    {
      role: 'assistant',
      content: 'On it.',
      replay: assistantReplay,
      toolCalls: [
        { id: 'toolu_01A', index: 0, name: 'write_file', arguments: '{"path":"notes/plan.md"}' },
        // Arguments that were never an object go as an empty input.
        { id: 'toolu_01B', index: 1, name: 'render_logo', arguments: '' },
      ],
    },
    { role: 'tool', toolCallId: 'toolu_01A', name: 'write_file', content: 'disk full', isError: true },
    {
      role: 'tool',
      toolCallId: 'toolu_01B',
      name: 'render_logo',
      content: 'Rendered.',
      images: [
        { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' },
        // Not a type a tool_result can carry: left out.
        { mimeType: 'image/svg+xml', data: 'PHN2Zz48L3N2Zz4=' },
      ],
    },
  ];

  test('system apart, thinking first as given, then text and tool_use, results in one user turn', async () => {
    const provider = await providerFor([{ body: equivalent('text-answer') }]);
    const { error } = await drain(
      provider,
      request({ model: 'claude-haiku-4-5', tools, messages: conversation(replay) }),
    );
    expect(error).toBeUndefined();
    const sent = upstream!.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/messages');
    // The key, as x-api-key or (as @anthropic-ai/sdk 1.16 sends it) a bearer token.
    expect(apiKeyOf(sent.headers)).toBe('test-key');
    expect(sent.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const body = sent.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'claude-haiku-4-5', stream: true, system: 'Be brief.' });
    expect(body.max_tokens).toBe(8192);
    expect(body).not.toHaveProperty('thinking');
    expect(body.tools).toEqual(
      tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters,
      })),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Write the plan and show me the logo.' }] },
      {
        role: 'assistant',
        content: [
          ...replay.items,
          { type: 'text', text: 'On it.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'write_file', input: { path: 'notes/plan.md' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'render_logo', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'disk full', is_error: true },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01B',
            content: [
              { type: 'text', text: 'Rendered.' },
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' },
              },
            ],
          },
        ],
      },
    ]);
  });

  test("another provider's replay is not sent; a question after the results shares their user turn", async () => {
    const provider = await providerFor([{ body: equivalent('text-answer') }]);
    const foreign: RoundReplay = {
      provider: 'openai-responses',
      items: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' }],
    };
    await drain(
      provider,
      request({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'Answer in English.' },
          ...conversation(foreign).slice(1),
          { role: 'user', content: 'And now?' },
        ],
      }),
    );
    const body = upstream!.requests[0]!.body as {
      system: string;
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    expect(body.system).toBe('Be brief.\n\nAnswer in English.');
    expect(body).not.toHaveProperty('tools');
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[1]!.content.map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(JSON.stringify(body)).not.toContain('encrypted_content');
    expect(body.messages[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
  });

  test.each([
    [{ type: 'budget', budgetTokens: 2048 } as const, { type: 'enabled', budget_tokens: 2048 }],
    [{ type: 'adaptive' } as const, { type: 'adaptive' }],
  ])('the thinking option %o is sent as %o', async (thinking, sent) => {
    const provider = await providerFor([{ body: equivalent('text-answer') }], { thinking, maxTokens: 4096 });
    await drain(provider);
    expect(upstream!.requests[0]!.body).toMatchObject({ thinking: sent, max_tokens: 4096 });
  });
});

describe('failures and retries', () => {
  const textAnswer = () => ({ body: equivalent('text-answer'), pieces: 7 });
  const expectedText = () => expectedFromAnthropicSse(equivalent('text-answer').toString('utf8')).content;
  const errorBody = (type: string, message: string) =>
    JSON.stringify({ type: 'error', error: { type, message } });

  test('an overloaded_error event before anything streamed (HTTP 200) is retried; the answer streams once', async () => {
    const provider = await providerFor([
      { body: `event: error\ndata: ${errorBody('overloaded_error', 'Overloaded')}\n\n` },
      textAnswer(),
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(upstream!.requests).toHaveLength(2);
    expect(textOf(chunks, 'contentDelta')).toBe(expectedText());
    expect(chunks.filter((c) => c.done)).toHaveLength(1);
  });

  test('an overloaded_error just after message_start, before any content, is retried too', async () => {
    const start = equivalent('text-answer').toString('utf8').split('\n\n')[0]!;
    expect(start).toContain('message_start');
    const provider = await providerFor([
      {
        body: `${start}\n\nevent: error\ndata: ${errorBody('overloaded_error', 'Overloaded')}\n\n`,
        byEvent: true,
      },
      textAnswer(),
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(upstream!.requests).toHaveLength(2);
    expect(textOf(chunks, 'contentDelta')).toBe(expectedText());
  });

  test('an error event that a retry cannot help (invalid_request_error) is reported at once', async () => {
    const provider = await providerFor([
      { body: `event: error\ndata: ${errorBody('invalid_request_error', 'messages: bad turn order')}\n\n` },
      textAnswer(),
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toMatchObject({ kind: 'upstream', message: expect.stringMatching(/bad turn order/) });
    expect(chunks).toEqual([]);
    expect(upstream!.requests).toHaveLength(1);
  });

  test('HTTP 529 overloaded, then success: retried', async () => {
    const provider = await providerFor([
      { status: 529, body: errorBody('overloaded_error', 'Overloaded') },
      textAnswer(),
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(upstream!.requests).toHaveLength(2);
    expect(textOf(chunks, 'contentDelta')).toBe(expectedText());
  });

  test('HTTP 529 every time: upstream, with the status, after the retries', async () => {
    const overloaded = { status: 529, body: errorBody('overloaded_error', 'Overloaded') };
    const { error } = await drain(await providerFor([overloaded, overloaded]));
    expect(error).toMatchObject({ kind: 'upstream', options: { status: 529 } });
    expect((error as Error).message).toMatch(/Overloaded/);
    expect(upstream!.requests).toHaveLength(2);
  });

  test('HTTP 429 with retry-after, then success: retried', async () => {
    const provider = await providerFor([
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: errorBody(
          'rate_limit_error',
          'Number of request tokens has exceeded your per-minute rate limit',
        ),
      },
      textAnswer(),
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(upstream!.requests).toHaveLength(2);
    expect(textOf(chunks, 'contentDelta')).toBe(expectedText());
  });

  test('HTTP 429 asking for a wait past the ceiling fails at once as rate_limited', async () => {
    const provider = await providerFor([
      { status: 429, headers: { 'retry-after': '3600' }, body: errorBody('rate_limit_error', 'slow down') },
      textAnswer(),
    ]);
    const { error } = await drain(provider);
    expect(error).toMatchObject({ kind: 'rate_limited', options: { status: 429, retryAfterMs: 3_600_000 } });
    expect(upstream!.requests).toHaveLength(1);
  });

  test('401 is auth, with the provider message, and is not retried', async () => {
    const provider = await providerFor([
      { status: 401, body: errorBody('authentication_error', 'invalid x-api-key') },
      textAnswer(),
    ]);
    const { error } = await drain(provider);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'auth', options: { status: 401 } });
    expect((error as Error).message).toMatch(/invalid x-api-key/);
    expect(upstream!.requests).toHaveLength(1);
  });

  test('abort while a tool call streams: aborted, no done, and the upstream connection is closed', async () => {
    const provider = await providerFor([{ body: equivalent('two-tools'), byEvent: true, delayMs: 25 }]);
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
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(chunks.some((c) => c.done)).toBe(false);
    // Stopped at the first fragment: far fewer than the 14 progress chunks of the whole
    // (a slow machine may have a fragment or two already read).
    expect(progressOf(chunks).length).toBeLessThan(7);
    await upstream!.closedEarly;
  });
});

describe('choosing Anthropic from the environment', () => {
  test('AALIS_PROVIDER=anthropic without ANTHROPIC_API_KEY is refused, naming the variable', () => {
    expect(() => providerFromEnv({ AALIS_PROVIDER: 'anthropic' })).toThrow(ConfigError);
    expect(() => providerFromEnv({ AALIS_PROVIDER: 'anthropic' })).toThrow(/ANTHROPIC_API_KEY/);
  });

  test('ANTHROPIC_API_KEY alone selects anthropic with claude-haiku-4-5', () => {
    const choice = providerFromEnv({ ANTHROPIC_API_KEY: 'sk-ant-test' });
    expect(choice.name).toBe('anthropic');
    expect(choice.model).toBe('claude-haiku-4-5');
    expect(choice.provider).toBeInstanceOf(AnthropicProvider);
    expect(choice.provider.name).toBe('anthropic');
  });

  test.each(['500', '1023', '8192', 'lots'])('AALIS_REASONING=%s is refused for anthropic', (value) => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test', AALIS_REASONING: value };
    expect(() => providerFromEnv(env)).toThrow(ConfigError);
    expect(() => providerFromEnv(env)).toThrow(/AALIS_REASONING.*1024/);
  });

  test('the environment reaches the request: base URL, output limit and thinking budget', async () => {
    upstream = await startFakeUpstream([
      { body: equivalent('text-answer') },
      { body: equivalent('text-answer') },
    ]);
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: `${upstream.url}/`,
      AALIS_MAX_OUTPUT_TOKENS: '4096',
      AALIS_REASONING: '2048',
    };
    const { chunks, error } = await drain(providerFromEnv(env).provider);
    expect(error).toBeUndefined();
    expect(lastOf(chunks).done).toBe(true);
    expect(apiKeyOf(upstream.requests[0]!.headers)).toBe('sk-ant-test');
    expect(upstream.requests[0]!.body).toMatchObject({
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    await drain(providerFromEnv({ ...env, AALIS_REASONING: 'adaptive' }).provider);
    expect(upstream.requests[1]!.body).toMatchObject({ thinking: { type: 'adaptive' } });
  });
});

test('a tool result of images alone has no empty text block (Anthropic refuses one)', () => {
  const { messages } = toAnthropicMessages([
    { role: 'user', content: 'draw' },
    { role: 'assistant', content: '', toolCalls: [{ id: 't1', index: 0, name: 'draw', arguments: '{}' }] },
    {
      role: 'tool',
      toolCallId: 't1',
      name: 'draw',
      content: '',
      images: [{ mimeType: 'image/png', data: 'iVBOR' }],
    },
  ]);
  expect(messages.at(-1)).toEqual({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } }],
      },
    ],
  });
});

test("a question's images go first as base64 image blocks, then its text", () => {
  const { messages } = toAnthropicMessages([
    {
      role: 'user',
      content: 'What is on these?',
      images: [
        { mimeType: 'image/png', data: 'iVBOR' },
        { mimeType: 'image/jpeg', data: '/9j/4' },
      ],
    },
  ]);
  expect(messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4' } },
        { type: 'text', text: 'What is on these?' },
      ],
    },
  ]);
});
