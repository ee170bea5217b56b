/**
 * One model round as every streaming provider runs it: link the caller's abort signal
 * to the HTTP request, open the response with retries (before the first byte only),
 * watch for silence, turn each upstream item into chunks, and end with `done` only when
 * the upstream said it finished. Providers supply just the parts that differ: how to
 * open the response and how to read one item of it.
 */
import type { ChatStreamChunk, Usage } from '@aalis/protocol';
import { ProviderError, abortedError, cutOffError } from './errors.js';
import { IdleTimer } from './idle-timer.js';
import { defaultRetryPolicy, withRetries, type RetryPolicy } from './retry.js';
import { ToolCallAccumulator } from './tool-call-accumulator.js';

/** What a provider learns while reading a round, besides the chunks it yields. */
export interface RoundState {
  calls: ToolCallAccumulator;
  /** Set when the upstream said the round is complete (`finish_reason`, `done: true`). */
  finished: boolean;
  usage?: Usage;
}

export interface RoundSource<Item> {
  /** Opens the response; called again for a retry. Throws `ProviderError`s. */
  open(signal: AbortSignal): Promise<AsyncIterable<Item>>;
  /** The chunks one upstream item yields, updating `round` as it learns. */
  read(item: Item, round: RoundState): Iterable<ChatStreamChunk>;
  /** A provider-specific reading of an error thrown mid-stream; cut off when it has none. */
  classify?(error: unknown): ProviderError | undefined;
}

export interface RoundOptions {
  signal?: AbortSignal | undefined;
  retry?: RetryPolicy | undefined;
  /** How long the stream may stay silent; generous, a model can think for a long time. */
  idleTimeoutMs?: number | undefined;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;

export async function* streamRound<Item>(
  provider: string,
  source: RoundSource<Item>,
  { signal, retry, idleTimeoutMs }: RoundOptions,
): AsyncGenerator<ChatStreamChunk> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const idle = new IdleTimer(idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => controller.abort());
  /** The response was read to its end: nothing left to abort. */
  let drained = false;
  try {
    if (signal?.aborted) throw abortedError(provider);
    const items = await withRetries(provider, retry ?? defaultRetryPolicy, signal, () =>
      source.open(controller.signal),
    );
    const round: RoundState = { calls: new ToolCallAccumulator(), finished: false };
    try {
      idle.start();
      for await (const item of items) {
        idle.start();
        yield* source.read(item, round);
      }
      drained = true;
    } catch (error) {
      if (signal?.aborted) throw abortedError(provider);
      if (idle.fired) throw idle.error(provider);
      if (error instanceof ProviderError) throw error;
      throw source.classify?.(error) ?? cutOffError(provider, error);
    }
    // Some iterators (the openai SDK's among them) return quietly when aborted.
    if (signal?.aborted) throw abortedError(provider);
    if (idle.fired) throw idle.error(provider);
    if (!round.finished) throw cutOffError(provider);
    const done: ChatStreamChunk = { done: true };
    if (round.calls.size) done.toolCalls = round.calls.calls();
    if (round.usage) done.usage = round.usage;
    yield done;
  } finally {
    idle.stop();
    signal?.removeEventListener('abort', onAbort);
    // A consumer that stops early must not leave the HTTP request running. A drained
    // response is not aborted: that would only build an AbortError and wake the HTTP
    // client's listeners for nothing, at every turn's end.
    if (!drained) controller.abort();
  }
}
