/**
 * Retries with exponential backoff and full jitter, for the request phase only: once a
 * response has started streaming, a failure is reported and never replayed (the user
 * already saw part of it, and a replay would show it twice or differently).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError, abortedError } from './errors.js';

export interface RetryPolicy {
  /** Tries after the first; 0 disables retrying. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { retries: 2, baseDelayMs: 500, maxDelayMs: 8_000 };

export async function withRetries<T>(
  provider: string,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal?.aborted) throw abortedError(provider);
      if (!(error instanceof ProviderError) || !error.retryable || tried >= policy.retries) throw error;
      const backoff = Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** tried);
      const delay = Math.min(policy.maxDelayMs, Math.max(backoff, error.options.retryAfterMs ?? 0));
      try {
        await sleep(delay, undefined, signal ? { signal } : {});
      } catch {
        throw abortedError(provider);
      }
    }
  }
}
