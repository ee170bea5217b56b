import { afterEach, describe, expect, test } from 'vitest';
import { createDeepSeekProvider } from '../src/providers/deepseek/index.js';
import { OllamaProvider } from '../src/providers/ollama/index.js';
import { fixture, startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import { FAST_RETRY, drain, expectedFromSse, progressOf, request, textOf } from './provider-helpers.js';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

describe('DeepSeek', () => {
  test('reasoning_content streams as reasoningDelta, then the tool call with progress', async () => {
    upstream = await startFakeUpstream([{ body: fixture('deepseek-reasoner-tool-call.sse'), pieces: 31 }]);
    const provider = createDeepSeekProvider({ apiKey: 'sk-test', baseURL: upstream.url, retry: FAST_RETRY });
    const { chunks, error } = await drain(provider);
    const expected = expectedFromSse(fixture('deepseek-reasoner-tool-call.sse').toString());
    expect(error).toBeUndefined();
    expect(textOf(chunks, 'reasoningDelta')).toBe(expected.reasoning);
    expect(expected.reasoning.length).toBeGreaterThan(20);
    expect(progressOf(chunks)).toEqual(expected.progress);
    // Reasoning comes first, before the first progress chunk.
    const firstProgress = chunks.findIndex((c) => c.toolCallProgress);
    expect(chunks.slice(0, firstProgress).every((c) => c.reasoningDelta)).toBe(true);
  });

  test("the follow-up request carries the assistant's reasoning_content with its tool calls", async () => {
    upstream = await startFakeUpstream([{ body: fixture('openai-text-answer.sse') }]);
    const provider = createDeepSeekProvider({ apiKey: 'sk-test', baseURL: upstream.url, retry: FAST_RETRY });
    await drain(
      provider,
      request({
        model: 'deepseek-reasoner',
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: '',
            reasoning: 'The user wants the weather; call get_weather.',
            toolCalls: [
              { id: 'call_00_ds7', index: 0, name: 'get_weather', arguments: '{"location":"Paris"}' },
            ],
          },
          { role: 'tool', toolCallId: 'call_00_ds7', name: 'get_weather', content: '{"temp":18}' },
          { role: 'assistant', content: 'It is 18 °C.', reasoning: 'Answer directly.' },
          { role: 'user', content: 'Thanks' },
        ],
      }),
    );
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/chat/completions');
    const messages = (sent.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      reasoning_content: 'The user wants the weather; call get_weather.',
      tool_calls: [{ id: 'call_00_ds7' }],
    });
    // Only messages that made tool calls carry it back.
    expect(messages[3]).not.toHaveProperty('reasoning_content');
  });
});

describe('Ollama', () => {
  async function ollama(replies: Reply[]) {
    upstream = await startFakeUpstream(replies);
    return new OllamaProvider({ host: upstream.url, retry: FAST_RETRY });
  }

  test('the fixture: thinking, one progress chunk per whole tool call with its JSON length, usage', async () => {
    const provider = await ollama([{ body: fixture('ollama-tool-calls.ndjson'), pieces: 9 }]);
    const { chunks, error } = await drain(provider);
    expect(error).toBeUndefined();
    expect(textOf(chunks, 'reasoningDelta')).toBe('Need weather for two cities.');
    const paris = JSON.stringify({ location: 'Paris, France', unit: 'celsius' });
    const tokyo = JSON.stringify({ location: 'Tokyo', unit: 'celsius' });
    expect(progressOf(chunks)).toEqual([
      { index: 0, name: 'get_weather', charsAccumulated: paris.length },
      { index: 1, name: 'get_weather', charsAccumulated: tokyo.length },
    ]);
    const done = chunks.at(-1)!;
    expect(done.done).toBe(true);
    expect(done.usage).toEqual({ promptTokens: 150, completionTokens: 44, totalTokens: 194 });
    expect(done.toolCalls?.map((c) => [c.index, c.name, c.arguments])).toEqual([
      [0, 'get_weather', paris],
      [1, 'get_weather', tokyo],
    ]);
    expect(done.toolCalls?.every((c) => c.id.startsWith('call_'))).toBe(true);
  });

  test('the request: /api/chat, streaming, tools, and earlier calls with object arguments', async () => {
    const provider = await ollama([{ body: fixture('ollama-tool-calls.ndjson') }]);
    await drain(
      provider,
      request({
        model: 'qwen3:8b',
        tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', index: 0, name: 'get_weather', arguments: '{"location":"Paris"}' }],
          },
          { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: '{"temp":18}' },
        ],
      }),
    );
    const sent = upstream!.requests[0]!;
    expect(sent.path).toBe('/api/chat');
    expect(sent.body).toMatchObject({
      model: 'qwen3:8b',
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          tool_calls: [{ function: { name: 'get_weather', arguments: { location: 'Paris' } } }],
        },
        { role: 'tool', content: '{"temp":18}', tool_name: 'get_weather' },
      ],
    });
  });

  test("a question's images go as the message's base64 images (Ollama's own API)", async () => {
    const provider = await ollama([{ body: fixture('ollama-tool-calls.ndjson') }]);
    await drain(
      provider,
      request({
        model: 'llava',
        messages: [
          { role: 'user', content: 'What is this?', images: [{ mimeType: 'image/png', data: 'iVBOR' }] },
        ],
      }),
    );
    expect(upstream!.requests[0]!.body).toMatchObject({
      messages: [{ role: 'user', content: 'What is this?', images: ['iVBOR'] }],
    });
  });

  test('a stream that ends before done: true is cut off, with no done chunk', async () => {
    const lines = fixture('ollama-tool-calls.ndjson').toString().trim().split('\n');
    const provider = await ollama([{ body: lines.slice(0, 2).join('\n') + '\n' }]);
    const { chunks, error } = await drain(provider);
    expect(progressOf(chunks)).toHaveLength(2);
    expect(chunks.some((c) => c.done)).toBe(false);
    expect(error).toMatchObject({ kind: 'upstream' });
  });

  test('a malformed line is a bad_response', async () => {
    const provider = await ollama([{ body: '{"message":{"content":"Hi"},"done":false}\n{"message":\n' }]);
    const { chunks, error } = await drain(provider);
    expect(textOf(chunks, 'contentDelta')).toBe('Hi');
    expect(error).toMatchObject({ kind: 'bad_response' });
  });

  test('an error line and an error status are reported with the server message', async () => {
    const line = await ollama([{ body: '{"error":"model runner has unexpectedly stopped"}\n' }]);
    expect((await drain(line)).error).toMatchObject({
      kind: 'upstream',
      message: expect.stringMatching(/unexpectedly stopped/),
    });
    await upstream!.close();
    const status = await ollama([
      { status: 404, body: '{"error":"model \\"nope\\" not found, try pulling it first"}' },
    ]);
    expect((await drain(status)).error).toMatchObject({
      kind: 'upstream',
      message: expect.stringMatching(/not found/),
    });
  });

  test('an unreachable host is an upstream error that names it', async () => {
    const provider = new OllamaProvider({
      host: 'http://127.0.0.1:9',
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    expect((await drain(provider)).error).toMatchObject({
      kind: 'upstream',
      message: expect.stringMatching(/could not reach ollama at http:\/\/127.0.0.1:9/),
    });
  });
});
