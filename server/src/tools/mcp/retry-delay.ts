/**
 * How long to wait before reconnecting to an MCP server that failed: 1 s, doubling to
 * 60 s, each jittered by ±20% so that servers which failed together (the network, a
 * restart of the host) are not all retried in the same instant.
 */
export interface RetryPolicy {
  /** The first wait (default 1 s). */
  initialMs?: number;
  /** The longest wait (default 60 s). */
  maxMs?: number;
}

export const DEFAULT_RETRY_INITIAL_MS = 1_000;
export const DEFAULT_RETRY_MAX_MS = 60_000;

/** The wait before attempt number `failures + 1`, after `failures` (>= 1) failures in a row. */
export function retryDelayMs(failures: number, policy: RetryPolicy = {}, random = Math.random): number {
  const initial = policy.initialMs ?? DEFAULT_RETRY_INITIAL_MS;
  const max = policy.maxMs ?? DEFAULT_RETRY_MAX_MS;
  const nominal = Math.min(max, initial * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return Math.round(Math.min(max, nominal * (0.8 + 0.4 * random())));
}
