/**
 * One model round as every streaming provider runs it: link the caller's abort signal
 * to the HTTP request, open the response with retries (before the first byte only) and
 * a deadline per attempt, watch for silence, turn each upstream item into chunks, and
 * end with `done` only when the upstream said it finished. While nothing streams, the
 * caller hears why (`onStatus`: waiting, retrying), so a visitor never stares at a
 * silent screen. Providers supply just the parts that differ: how to open the response
 * and how to read one item of it.
 */
import type { ChatStreamChunk, TurnStatus, Usage } from '@aalis/protocol';
import { formatSeconds } from '../../util/format-seconds.js';
import { ProviderError, abortedError, cutOffError } from './errors.js';
import { defaultRetryPolicy, withRetries, type RetryPolicy } from './retry.js';
import { SilenceWatch } from './silence-watch.js';
import { ToolCallAccumulator } from './tool-call-accumulator.js';
import type { ProviderChunk, RoundReplay } from './types.js';

/** What a provider learns while reading a round, besides the chunks it yields. */
export interface RoundState {
  calls: ToolCallAccumulator;
  /** Set when the upstream said the round is complete (`finish_reason`, `done: true`). */
  finished: boolean;
  usage?: Usage;
  /** What the provider must be given back with this round (types.ts, RoundReplay). */
  replay?: RoundReplay;
}

interface RoundSource<Item> {
  /** Opens the response; called again for a retry. Throws `ProviderError`s. */
  open(signal: AbortSignal): Promise<AsyncIterable<Item>>;
  /** The chunks one upstream item yields, updating `round` as it learns. */
  read(item: Item, round: RoundState): Iterable<ChatStreamChunk>;
  /** Last look before `done`, to complete the calls or refuse the round (a call cut short). */
  finish?(round: RoundState): void;
  /** A provider-specific reading of an error thrown mid-stream; cut off when it has none. */
  classify?(error: unknown): ProviderError | undefined;
}

/** How long an upstream may keep us waiting; every provider takes these options. */
export interface UpstreamTimeouts {
  /** How long one attempt may wait for the response to start (headers) before it is retried. */
  firstByteTimeoutMs?: number | undefined;
  /**
   * How long the stream may stay silent once it started before the round is given up.
   * Generous: a model can think for a while between fragments, and the visitor is told.
   */
  idleTimeoutMs?: number | undefined;
}

interface RoundOptions extends UpstreamTimeouts {
  signal?: AbortSignal | undefined;
  retry?: RetryPolicy | undefined;
  /** Hears why nothing streams: silence (`waiting`), or a retry about to be made. */
  onStatus?: ((status: TurnStatus) => void) | undefined;
  /** Silence before `waiting` is said. */
  waitingNoticeMs?: number | undefined;
}

export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;
const DEFAULT_WAITING_NOTICE_MS = 4_000;

export async function* streamRound<Item>(
  provider: string,
  source: RoundSource<Item>,
  options: RoundOptions,
): AsyncGenerator<ProviderChunk> {
  const { signal, onStatus } = options;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let attempt = 1;
  const silence = new SilenceWatch(
    options.waitingNoticeMs ?? DEFAULT_WAITING_NOTICE_MS,
    options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    () => onStatus?.({ state: 'waiting', attempt }),
    () => controller.abort(),
  );
  /** The response was read to its end: nothing left to abort. */
  let drained = false;
  try {
    if (signal?.aborted) throw abortedError(provider);
    const items = await withRetries(
      provider,
      options.retry ?? defaultRetryPolicy,
      signal,
      (number) => {
        attempt = number;
        silence.attempt();
        return openInTime(
          provider,
          (attempt) => source.open(attempt),
          controller.signal,
          options.firstByteTimeoutMs,
        );
      },
      ({ attempt: next, delayMs }) => {
        // The countdown says it all until the next attempt starts.
        silence.pause();
        onStatus?.({ state: 'retrying', attempt: next, retryInMs: delayMs });
      },
    );
    const round: RoundState = { calls: new ToolCallAccumulator(), finished: false };
    try {
      silence.streaming();
      for await (const item of items) {
        silence.heard();
        for (const chunk of source.read(item, round)) {
          silence.shown();
          yield chunk;
        }
      }
      drained = true;
    } catch (error) {
      if (signal?.aborted) throw abortedError(provider);
      if (silence.idle) throw silence.idleError(provider);
      if (error instanceof ProviderError) throw error;
      throw source.classify?.(error) ?? cutOffError(provider, error);
    }
    // Some iterators (the openai SDK's among them) return quietly when aborted.
    if (signal?.aborted) throw abortedError(provider);
    if (silence.idle) throw silence.idleError(provider);
    if (!round.finished) throw cutOffError(provider);
    source.finish?.(round);
    const done: ProviderChunk = { done: true };
    if (round.calls.size) done.toolCalls = round.calls.calls();
    if (round.usage) done.usage = round.usage;
    if (round.replay?.items.length) done.replay = round.replay;
    yield done;
  } finally {
    silence.stop();
    signal?.removeEventListener('abort', onAbort);
    // A consumer that stops early must not leave the HTTP request running. A drained
    // response is not aborted: that would only build an AbortError and wake the HTTP
    // client's listeners for nothing, at every turn's end.
    if (!drained) controller.abort();
  }
}

/**
 * One attempt at opening a response, given up (as a timeout) when it has not started in
 * time: retryable unless `retryable` says no (an upstream agent may have begun its run,
 * which must not be posted twice). Each attempt has its own signal, so a timed-out attempt
 * is cancelled without cancelling the retry; the round's signal still reaches every one,
 * and keeps reaching the response while it streams.
 */
export async function openInTime<T>(
  who: string,
  open: (signal: AbortSignal) => Promise<T>,
  roundSignal: AbortSignal,
  timeoutMs = DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  { retryable = true } = {},
): Promise<T> {
  const attempt = new AbortController();
  const onRoundAbort = () => attempt.abort();
  roundSignal.addEventListener('abort', onRoundAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    attempt.abort();
  }, timeoutMs);
  try {
    // The listener stays while the response streams: a round abort must still reach it.
    return await open(attempt.signal);
  } catch (error) {
    roundSignal.removeEventListener('abort', onRoundAbort);
    if (timedOut && !roundSignal.aborted) {
      throw new ProviderError('timeout', `${who} did not start answering in ${formatSeconds(timeoutMs)}`, {
        retryable,
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
