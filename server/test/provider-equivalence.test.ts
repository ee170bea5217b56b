/**
 * The widget must not be able to tell the providers apart: the same answer streamed by
 * Chat Completions, Anthropic's Messages API and OpenAI's Responses API reaches a real
 * socket as the same frames (same cards, same counts, same final arguments, same ends).
 * Each case of fixtures/equivalent/ is one answer written in the three wire formats; each
 * runs through the whole server, written to it in random pieces.
 */
import { readdirSync } from 'node:fs';
import type { ServerFrame } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { AnthropicProvider } from '../src/providers/anthropic/index.js';
import { OpenAIResponsesProvider } from '../src/providers/openai-responses/index.js';
import type { ChatProvider } from '../src/providers/core/types.js';
import { fixture, startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import { FAST_RETRY, openAIOn } from './provider-helpers.js';
import { startServer, type Harness } from './ws-harness.js';

type Format = 'chat-completions' | 'anthropic' | 'responses';

const CASES = readdirSync(new URL('./fixtures/equivalent/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const providerOn = (format: Format, url: string): ChatProvider => {
  const patience = { retry: FAST_RETRY };
  switch (format) {
    case 'chat-completions':
      return openAIOn(url, patience);
    case 'anthropic':
      return new AnthropicProvider({ apiKey: 'test-key', baseURL: url, ...patience });
    case 'responses':
      return new OpenAIResponsesProvider({ apiKey: 'test-key', baseURL: `${url}/v1`, ...patience });
  }
};

const answer = (format: Format, name: string): Reply => ({
  body: fixture(`equivalent/${name}/${format}.sse`),
  pieces: 61,
});

let harness: Harness | undefined;
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await harness?.close();
  await upstream?.close();
  harness = upstream = undefined;
});

/** One turn of `name` through a server on `format`: its frames, and what the upstream was asked. */
async function turnOn(format: Format, name: string, later: Reply[] = []) {
  // A round that calls tools is followed by one more, answered with text.
  upstream = await startFakeUpstream([answer(format, name), answer(format, 'text-answer'), ...later]);
  harness = await startServer({ provider: providerOn(format, upstream.url) });
  const client = await harness.connect();
  await client.hello();
  const from = client.frames.length;
  client.send({ type: 'send', text: 'go', clientMessageId: 'c-1' });
  await client.turnEnd(from);
  return { frames: client.frames.slice(from), requests: upstream.requests, client };
}

/** Frames with what differs by nature (clocks, ids each run or API makes) replaced by placeholders. */
function comparable(frames: ServerFrame[]): unknown[] {
  const callIds = new Map<string, string>();
  const CLOCKS = new Set([
    'startedAt',
    'updatedAt',
    'createdAt',
    'endedAt',
    'durationMs',
    'writingMs',
    'expiresAt',
    'at',
  ]);
  const visit = (value: unknown, key = ''): unknown => {
    if (Array.isArray(value)) return value.map((item) => visit(item));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([k]) => !CLOCKS.has(k) && k !== 'errorId')
          .map(([k, v]) => [k, visit(v, k)]),
      );
    }
    if (key === 'callId' && typeof value === 'string') {
      if (!callIds.has(value)) callIds.set(value, `call#${callIds.size}`);
      return callIds.get(value);
    }
    if ((key === 'id' || key === 'sessionId' || key === 'messageId') && typeof value === 'string') return key;
    return value;
  };
  return frames.map((frame) => visit(frame));
}

describe.each(CASES)('%s', (name) => {
  test('Anthropic and the Responses API give the frames Chat Completions gives', async () => {
    const reference = await turnOn('chat-completions', name);
    const expected = comparable(reference.frames);
    // The reference itself shows something: a card, text or reasoning, and an end.
    expect(reference.frames.some((f) => f.type === 'stream')).toBe(true);
    expect(reference.frames.at(-1)?.type).toBe('message');
    await harness!.close();
    await upstream!.close();
    for (const format of ['anthropic', 'responses'] as const) {
      const { frames } = await turnOn(format, name);
      expect(comparable(frames), `${format} against chat-completions`).toEqual(expected);
      await harness!.close();
      await upstream!.close();
    }
    harness = upstream = undefined;
  });
});

describe('what a provider gives to be sent back', () => {
  test('Anthropic: the signed thinking goes back with the next round and the next turn, and never to a tab', async () => {
    const { frames, requests, client } = await turnOn('anthropic', 'thinking-then-tool', [
      answer('anthropic', 'text-answer'),
    ]);
    const text = fixture('equivalent/thinking-then-tool/anthropic.sse').toString('utf8');
    const signature = /"signature":"([^"]+)"/.exec(text.replace(/"signature":""/g, ''))![1]!;
    const redacted = /"data":"([^"]+)"/.exec(text)![1]!;
    expect(JSON.stringify(frames)).not.toContain(signature);
    expect(JSON.stringify(frames)).not.toContain(redacted);

    // Round 2 carries the thinking blocks first in the assistant turn, unchanged.
    const second = requests[1]!.body as { messages: Array<{ role: string; content: unknown }> };
    const assistant = second.messages.find((m) => m.role === 'assistant')!;
    const blocks = assistant.content as Array<Record<string, unknown>>;
    expect(blocks[0]).toMatchObject({ type: 'thinking', signature });
    expect((blocks[0]!.thinking as string).length).toBeGreaterThan(0);
    expect(blocks[1]).toEqual({ type: 'redacted_thinking', data: redacted });
    expect(blocks[2]).toMatchObject({ type: 'tool_use', name: 'write_file' });

    // A new tab's history has no trace of it; the next turn still sends it.
    const other = await harness!.connect();
    await other.hello(client.view.sessionId!);
    expect(JSON.stringify(other.frames)).not.toContain(signature);
    expect(JSON.stringify(other.frames)).not.toContain('rounds');
    const from = other.frames.length;
    other.send({ type: 'send', text: 'and now?' });
    await other.turnEnd(from);
    const third = requests[2]!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(third.messages.find((m) => m.role === 'assistant')!.content).toEqual(assistant.content);
  });

  test('Responses API: the encrypted reasoning item goes back as input, and never to a tab', async () => {
    const { frames, requests } = await turnOn('responses', 'thinking-then-tool');
    const text = fixture('equivalent/thinking-then-tool/responses.sse').toString('utf8');
    const encrypted = /"encrypted_content":"([^"]+)"/.exec(text)![1]!;
    expect(JSON.stringify(frames)).not.toContain(encrypted);
    const second = requests[1]!.body as { input: Array<Record<string, unknown>>; store: boolean };
    expect(second.store).toBe(false);
    const reasoning = second.input.findIndex((item) => item.type === 'reasoning');
    const call = second.input.findIndex((item) => item.type === 'function_call');
    expect(second.input[reasoning]).toMatchObject({ encrypted_content: encrypted });
    // The reasoning item comes before the call it led to, and the call's output after it.
    expect(reasoning).toBeGreaterThanOrEqual(0);
    expect(call).toBeGreaterThan(reasoning);
    expect(second.input[call + 1]).toMatchObject({ type: 'function_call_output' });
  });
});
