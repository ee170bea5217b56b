import { afterEach, describe, expect, test } from 'vitest';
import { ProviderError } from '../src/providers/core/errors.js';
import type { OpenAIProvider } from '../src/providers/openai/index.js';
import {
  completionChunk,
  fixture,
  sse,
  startFakeUpstream,
  type FakeUpstream,
  type Reply,
} from './fake-upstream.js';
import {
  FAST_RETRY,
  drain,
  expectedFromSse,
  openAIOn,
  progressOf,
  request,
  textOf,
} from './provider-helpers.js';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function providerFor(
  replies: Reply[],
  options: Partial<ConstructorParameters<typeof OpenAIProvider>[0]> = {},
) {
  upstream = await startFakeUpstream(replies);
  // Two retries: the test of running out of them counts three requests.
  return openAIOn(upstream.url, { retry: { ...FAST_RETRY, retries: 2 }, ...options });
}

describe('the shared fixtures through the real provider', () => {
  test.each([
    'openai-text-answer.sse',
    'openai-text-then-tool-call.sse',
    'openai-parallel-tool-calls.sse',
    'openai-long-tool-call.sse',
    'deepseek-reasoner-tool-call.sse',
  ])('%s: one progress chunk per fragment, absolute counts, then the complete calls', async (name) => {
    const bytes = fixture(name);
    const expected = expectedFromSse(bytes.toString('utf8'));
    // Written in 97 pieces that split lines, JSON and UTF-8 characters anywhere.
    const { chunks, error } = await drain(await providerFor([{ body: bytes, pieces: 97 }]));
    expect(error).toBeUndefined();
    expect(progressOf(chunks)).toEqual(expected.progress);
    expect(textOf(chunks, 'contentDelta')).toBe(expected.content);
    expect(textOf(chunks, 'reasoningDelta')).toBe(expected.reasoning);
    const last = chunks.at(-1)!;
    expect(last.done).toBe(true);
    expect(last.usage).toEqual(expected.usage);
    expect(last.toolCalls ?? []).toEqual(expected.toolCalls);
    // Nothing but the last chunk says done, and no chunk is empty.
    expect(chunks.slice(0, -1).every((c) => !c.done && Object.keys(c).length === 1)).toBe(true);
  });

  test('the parallel fixture: two calls, their arguments whole and parseable', async () => {
    const { chunks } = await drain(await providerFor([{ body: fixture('openai-parallel-tool-calls.sse') }]));
    const calls = chunks.at(-1)!.toolCalls!;
    expect(calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      ['call_Wq1Zr8', 'get_weather', { location: 'Paris, France', unit: 'celsius' }],
      ['call_Hk3Lm2', 'get_weather', { location: '东京, 日本', unit: 'celsius' }],
    ]);
    // The first fragment of each call (name only, empty arguments) makes its card appear.
    expect(progressOf(chunks).filter((p) => p.charsAccumulated === 0)).toEqual([
      { index: 0, name: 'get_weather', charsAccumulated: 0 },
      { index: 1, name: 'get_weather', charsAccumulated: 0 },
    ]);
  });

  test('the long fixture: the count grows by every fragment up to the full length', async () => {
    const { chunks } = await drain(
      await providerFor([{ body: fixture('openai-long-tool-call.sse'), pieces: 500 }]),
    );
    const counts = progressOf(chunks).map((p) => p.charsAccumulated);
    const final = chunks.at(-1)!.toolCalls![0]!;
    expect(counts.length).toBeGreaterThan(1000);
    expect(counts.at(-1)).toBe(final.arguments.length);
    expect(counts.every((n, i) => i === 0 || n >= counts[i - 1]!)).toBe(true);
    expect(JSON.parse(final.arguments)).toHaveProperty('path');
  });
});

describe('quirks of compatible servers', () => {
  const run = async (name: string) => drain(await providerFor([{ body: fixture(name), pieces: 13 }]));

  test('missing index: a new id starts a call, a fragment with neither continues the latest', async () => {
    const { chunks, error } = await run('quirk-missing-index.sse');
    expect(error).toBeUndefined();
    expect(progressOf(chunks)).toEqual([
      { index: 0, name: 'get_time', charsAccumulated: 0 },
      { index: 0, name: 'get_time', charsAccumulated: 8 },
      { index: 0, name: 'get_time', charsAccumulated: 14 },
      { index: 1, name: 'get_weather', charsAccumulated: 11 },
      { index: 1, name: 'get_weather', charsAccumulated: 19 },
    ]);
    expect(chunks.at(-1)!.toolCalls).toEqual([
      { index: 0, id: 'call_a', name: 'get_time', arguments: '{"zone":"UTC"}' },
      { index: 1, id: 'call_b', name: 'get_weather', arguments: '{"location":"Oslo"}' },
    ]);
  });

  test('id and name repeated on every fragment: never concatenated, never reset', async () => {
    const { chunks } = await run('quirk-repeated-id-and-name.sse');
    expect(progressOf(chunks).map((p) => `${p.index} ${p.name} ${p.charsAccumulated}`)).toEqual([
      '0 search 0',
      '0 search 9',
      '0 search 22',
    ]);
    expect(chunks.at(-1)!.toolCalls).toEqual([
      { index: 0, id: 'call_r', name: 'search', arguments: '{"query":"tool calls"}' },
    ]);
  });

  test('a name that arrives after the first fragment, in pieces', async () => {
    const { chunks } = await run('quirk-late-name.sse');
    expect(progressOf(chunks).map((p) => p.name)).toEqual(['', 'write_', 'write_file']);
    expect(chunks.at(-1)!.toolCalls?.[0]?.name).toBe('write_file');
  });

  test('a whole call in one fragment, and no [DONE] after finish_reason', async () => {
    const { chunks, error } = await run('quirk-whole-call-no-done.sse');
    expect(error).toBeUndefined();
    expect(progressOf(chunks)).toEqual([
      { index: 0, name: 'calculator', charsAccumulated: '{"expression":"2*(3+4)"}'.length },
    ]);
    expect(chunks.at(-1)).toMatchObject({ done: true, usage: { promptTokens: 50, completionTokens: 20 } });
  });

  test('two indexes in one chunk yield two progress chunks; interleaving and empty choices are fine', async () => {
    const { chunks } = await run('quirk-interleaved.sse');
    expect(progressOf(chunks)).toEqual([
      { index: 0, name: 'get_weather', charsAccumulated: 0 },
      { index: 1, name: 'get_weather', charsAccumulated: 0 },
      { index: 1, name: 'get_weather', charsAccumulated: 19 },
      { index: 0, name: 'get_weather', charsAccumulated: 12 },
      { index: 0, name: 'get_weather', charsAccumulated: 20 },
      { index: 2, name: 'get_time', charsAccumulated: 2 },
    ]);
    expect(chunks.at(-1)!.toolCalls!.map((c) => c.id)).toEqual(['call_x', 'call_y', 'call_z']);
  });

  test('an index reused for a call with another id is a new call', async () => {
    const { chunks } = await run('quirk-reused-index.sse');
    expect(chunks.at(-1)!.toolCalls).toEqual([
      { index: 0, id: 'call_p', name: 'get_time', arguments: '{}' },
      { index: 1, id: 'call_q', name: 'get_weather', arguments: '{"location":"Rome"}' },
    ]);
  });

  test('reasoning_content from a compatible server becomes reasoningDelta', async () => {
    const { chunks } = await run('quirk-reasoning-content.sse');
    expect(textOf(chunks, 'reasoningDelta')).toBe('Two plus two is four.');
    expect(textOf(chunks, 'contentDelta')).toBe('It is 4.');
  });

  test('a stream that ends without finish_reason is cut off: progress was shown, no done, an error', async () => {
    const { chunks, error } = await run('quirk-cut-off.sse');
    expect(progressOf(chunks)).toHaveLength(2);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('upstream');
    expect((error as ProviderError).message).toMatch(/broke off before the model finished/);
  });
});

describe('failures', () => {
  test('401 is auth, with the provider message, and is not retried', async () => {
    const provider = await providerFor([
      { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) },
    ]);
    const { error } = await drain(provider);
    expect(error).toMatchObject({ kind: 'auth', message: expect.stringMatching(/Incorrect API key/) });
    expect(upstream!.requests).toHaveLength(1);
  });

  test('429 then success: retried after Retry-After, and the answer streams once', async () => {
    const provider = await providerFor([
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: JSON.stringify({ error: { message: 'slow down' } }),
      },
      { body: fixture('openai-text-answer.sse') },
    ]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(upstream!.requests).toHaveLength(2);
    expect(textOf(chunks, 'contentDelta')).toBe(
      expectedFromSse(fixture('openai-text-answer.sse').toString()).content,
    );
  });

  test('500 three times: reported as upstream after the retries run out', async () => {
    const failing = { status: 500, body: JSON.stringify({ error: { message: 'boom' } }) };
    const { error } = await drain(await providerFor([failing, failing, failing]));
    expect(error).toMatchObject({ kind: 'upstream', options: { status: 500 } });
    expect(upstream!.requests).toHaveLength(3);
  });

  test('a connection that breaks mid-tool-call is reported and never replayed', async () => {
    const bytes = fixture('openai-long-tool-call.sse');
    const half = Math.floor(bytes.length / 2);
    const provider = await providerFor([{ body: bytes, pieces: 20, delayMs: 5, breakAfterBytes: half }]);
    const { chunks, error } = await drain(provider);
    expect(progressOf(chunks).length).toBeGreaterThan(100);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toMatchObject({ kind: 'upstream' });
    expect(upstream!.requests).toHaveLength(1);
  });

  test('a malformed JSON line mid-stream is a bad_response; what came before was delivered', async () => {
    const body =
      sse([completionChunk({ role: 'assistant', content: 'Hel' }), completionChunk({ content: 'lo' })], {
        done: false,
      }) + 'data: {"choices":[{"delta":{"content":"oops"\n\n';
    const { chunks, error } = await drain(await providerFor([{ body }]));
    expect(textOf(chunks, 'contentDelta')).toBe('Hello');
    expect(error).toMatchObject({ kind: 'bad_response' });
  });

  test('an error object inside the stream is reported as upstream', async () => {
    const body =
      sse([completionChunk({ content: 'Hi' })], { done: false }) +
      'data: {"error":{"message":"overloaded"}}\n\n';
    const { error } = await drain(await providerFor([{ body }]));
    expect(error).toMatchObject({ kind: 'upstream', message: expect.stringMatching(/overloaded/) });
  });

  test('abort while arguments stream: the request is cancelled upstream and nothing completes', async () => {
    const provider = await providerFor([
      { body: fixture('openai-long-tool-call.sse'), pieces: 400, delayMs: 5 },
    ]);
    const controller = new AbortController();
    const chunks = [];
    let error: unknown;
    try {
      for await (const chunk of provider.chatStream(request(), { signal: controller.signal })) {
        chunks.push(chunk);
        if (chunks.length === 20) controller.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(chunks.some((c) => c.done)).toBe(false);
    await upstream!.closedEarly;
  });

  test('a stream silent past the idle timeout is a timeout', async () => {
    const provider = await providerFor(
      [{ body: fixture('openai-text-answer.sse'), pieces: 3, delayMs: 400 }],
      {
        idleTimeoutMs: 100,
      },
    );
    const { error } = await drain(provider);
    expect(error).toMatchObject({ kind: 'timeout' });
  });

  test('a stream that keeps talking outlives the idle timeout, however long it runs', async () => {
    // Six pieces 60 ms apart: 300 ms in all, twice the allowed silence, never silent for it.
    const provider = await providerFor(
      [{ body: fixture('openai-text-answer.sse'), pieces: 6, delayMs: 60 }],
      { idleTimeoutMs: 150 },
    );
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(chunks.at(-1)).toMatchObject({ done: true });
  });

  test('a server that never answers times out and is retried, then reported', async () => {
    const provider = await providerFor([{ hang: true }, { hang: true }], {
      firstByteTimeoutMs: 100,
      retry: FAST_RETRY,
    });
    const { error } = await drain(provider);
    expect(error).toMatchObject({ kind: 'timeout' });
    expect(upstream!.requests).toHaveLength(2);
  });
});

describe('the request', () => {
  test('streams with usage, sends tools as functions and earlier tool calls and results', async () => {
    const provider = await providerFor([{ body: fixture('openai-text-answer.sse') }]);
    await drain(
      provider,
      request({
        tools: [
          { name: 'get_time', description: 'Current time', parameters: { type: 'object', properties: {} } },
        ],
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Time?' },
          {
            role: 'assistant',
            content: '',
            reasoning: 'Need the clock.',
            toolCalls: [{ id: 'call_1', index: 0, name: 'get_time', arguments: '{}' }],
          },
          { role: 'tool', toolCallId: 'call_1', name: 'get_time', content: '"12:00"' },
        ],
      }),
    );
    const sent = upstream!.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer test-key');
    expect(sent.body).toMatchObject({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'get_time', description: 'Current time' } }],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Time?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '"12:00"' },
      ],
    });
    // Plain OpenAI gets no reasoning_content back.
    expect(JSON.stringify(sent.body)).not.toContain('reasoning_content');
  });
});
