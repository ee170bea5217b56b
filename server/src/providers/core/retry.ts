/**
 * Retries with exponential backoff and full jitter, for the request phase only: once a
 * response has started streaming, a failure is reported and never replayed (the user
 * already saw part of it, and a replay would show it twice or differently).
 *
 * A provider's `Retry-After` is honoured up to a ceiling: asked to wait longer than
 * that, we give up at once rather than keep a visitor waiting on a request that the
 * provider said would be refused anyway.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError, abortedError } from './errors.js';

export interface RetryPolicy {
  /** Tries after the first; 0 disables retrying. */
  retries: number;
  baseDelayMs: number;
  /** Longest wait of our own backoff. */
  maxDelayMs: number;
  /** Longest `Retry-After` we wait for (30 s by default); a provider that asks for more fails the turn now. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;

export const defaultRetryPolicy: RetryPolicy = {
  retries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS,
};

/** A retry about to happen, for whoever tells the visitor. */
interface RetryNotice {
  /** The attempt that will be made, 2 for the first retry. */
  attempt: number;
  delayMs: number;
}

export async function withRetries<T>(
  provider: string,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  attempt: (number: number) => Promise<T>,
  onRetry: (notice: RetryNotice) => void = () => {},
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt(tried + 1);
    } catch (error) {
      if (signal?.aborted) throw abortedError(provider);
      if (!(error instanceof ProviderError) || !error.retryable || tried >= policy.retries) throw error;
      const asked = error.options.retryAfterMs;
      if (asked !== undefined && asked > (policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS)) throw error;
      const backoff = Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** tried);
      const delayMs = Math.round(asked ?? backoff);
      onRetry({ attempt: tried + 2, delayMs });
      try {
        await sleep(delayMs, undefined, signal ? { signal } : {});
      } catch {
        throw abortedError(provider);
      }
    }
  }
}
