/** Shared pieces of the provider tests: running a stream to its end, and an independent reading of a fixture. */
import type { ChatStreamChunk, ToolCallProgress } from '@aalis/protocol';
import { expect } from 'vitest';
import { OpenAIProvider, type OpenAIProviderOptions } from '../src/providers/openai/index.js';
import type { ChatProvider, ChatRequest } from '../src/providers/core/types.js';

/** Retries that take milliseconds, so tests of retrying stay fast. */
export const FAST_RETRY = { retries: 1, baseDelayMs: 1, maxDelayMs: 2 };

/** The real OpenAI provider, pointed at a fake upstream. */
export const openAIOn = (upstreamUrl: string, options: Partial<OpenAIProviderOptions> = {}): OpenAIProvider =>
  new OpenAIProvider({ apiKey: 'test-key', baseURL: `${upstreamUrl}/v1`, retry: FAST_RETRY, ...options });

export const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'test-model',
  messages: [{ role: 'user', content: 'hello' }],
  tools: [],
  ...overrides,
});

/** Every chunk the provider yielded, and the error it ended with, if any. */
export async function drain(
  provider: ChatProvider,
  req: ChatRequest = request(),
  signal?: AbortSignal,
): Promise<{ chunks: ChatStreamChunk[]; error?: unknown }> {
  const chunks: ChatStreamChunk[] = [];
  try {
    for await (const chunk of provider.chatStream(req, signal ? { signal } : {})) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

/** What each progress chunk shows on a card: its index, name and count (not the id and text it carries for the server). */
export const progressOf = (chunks: ChatStreamChunk[]): ToolCallProgress[] =>
  chunks.flatMap((c) =>
    c.toolCallProgress
      ? [
          {
            index: c.toolCallProgress.index,
            name: c.toolCallProgress.name,
            charsAccumulated: c.toolCallProgress.charsAccumulated,
          },
        ]
      : [],
  );

/** The argument text the progress chunks of one index carried, joined: what an AG-UI client is streamed. */
export const argumentTextOf = (chunks: ChatStreamChunk[], index: number): string =>
  chunks
    .map((c) => (c.toolCallProgress?.index === index ? (c.toolCallProgress.argumentsDelta ?? '') : ''))
    .join('');

export const textOf = (chunks: ChatStreamChunk[], key: 'contentDelta' | 'reasoningDelta'): string =>
  chunks.map((c) => c[key] ?? '').join('');

/**
 * What a fixture that always names its indexes should produce, read straight from the
 * SSE text: one progress per tool-call entry, with the running length of its arguments.
 */
export function expectedFromSse(text: string) {
  const progress: ToolCallProgress[] = [];
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let content = '';
  let reasoning = '';
  let usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices[0]?.delta ?? {};
    content += delta.content ?? '';
    reasoning += delta.reasoning_content ?? '';
    for (const entry of delta.tool_calls ?? []) {
      const call = calls.get(entry.index) ?? { id: '', name: '', arguments: '' };
      call.id ||= entry.id ?? '';
      call.name ||= entry.function?.name ?? '';
      call.arguments += entry.function?.arguments ?? '';
      calls.set(entry.index, call);
      progress.push({ index: entry.index, name: call.name, charsAccumulated: call.arguments.length });
    }
  }
  return {
    progress,
    content,
    reasoning,
    toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([index, c]) => ({ index, ...c })),
    usage: usage && {
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.total_tokens,
    },
  };
}

/** What a fixture's own reading says a round must yield. */
export interface ExpectedRound {
  progress: ToolCallProgress[];
  content: string;
  reasoning: string;
  toolCalls: Array<{ index: number; id: string; name: string; arguments: string }>;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number } | undefined;
}

/**
 * A whole round as `expected` reads it from the fixture: the same progress, text and
 * reasoning, one done last with the calls (ids like `callId`, arguments whole JSON) and
 * usage, every other chunk carrying one thing, each card shown before its first character.
 */
export function expectRound(chunks: ChatStreamChunk[], expected: ExpectedRound, callId: RegExp): void {
  expect(progressOf(chunks)).toEqual(expected.progress);
  expect(textOf(chunks, 'contentDelta')).toBe(expected.content);
  expect(textOf(chunks, 'reasoningDelta')).toBe(expected.reasoning);
  const done = chunks.at(-1)!;
  expect(done.done).toBe(true);
  expect(done.usage).toEqual(expected.usage);
  expect(done.toolCalls ?? []).toEqual(expected.toolCalls);
  for (const call of done.toolCalls ?? []) {
    expect(call.id).toMatch(callId);
    expect(() => JSON.parse(call.arguments)).not.toThrow();
    // The fragments' text adds up to the call, and every fragment after the first names its id.
    expect(argumentTextOf(chunks, call.index)).toBe(call.arguments);
    const ids = chunks.flatMap((c) =>
      c.toolCallProgress?.index === call.index ? [c.toolCallProgress.callId] : [],
    );
    expect(ids.at(-1)).toBe(call.id);
  }
  expect(chunks.filter((c) => c.done)).toHaveLength(1);
  expect(chunks.slice(0, -1).every((c) => Object.keys(c).length === 1)).toBe(true);
  for (const call of expected.toolCalls) {
    const first = progressOf(chunks).find((p) => p.index === call.index);
    expect(first).toEqual({ index: call.index, name: call.name, charsAccumulated: 0 });
  }
}
