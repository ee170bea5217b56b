/** Typed provider failures, each with a message a person can act on. */

export type ProviderErrorKind =
  | 'auth'
  | 'rate_limited'
  | 'upstream'
  | 'timeout'
  | 'aborted'
  | 'bad_response'
  /** The response passed a size cap of ours (a stream line longer than we read). */
  | 'too_large';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';

  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly options: {
      /** HTTP status from the provider, when there was one. */
      status?: number;
      /** Whether trying the same request again may succeed (only before the first byte). */
      retryable?: boolean;
      /** Milliseconds the provider asked us to wait (Retry-After). */
      retryAfterMs?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
  }

  get retryable(): boolean {
    return this.options.retryable ?? false;
  }
}

/** Maps an HTTP status from a provider to a typed error. */
export function errorForStatus(
  provider: string,
  status: number,
  detail: string,
  retryAfterMs?: number,
): ProviderError {
  const said = detail ? `: ${detail.slice(0, 300)}` : '';
  const base = { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  if (status === 401 || status === 403) {
    return new ProviderError('auth', `${provider} refused the credentials (HTTP ${status})${said}`, base);
  }
  if (status === 429) {
    return new ProviderError('rate_limited', `${provider} is rate limiting us (HTTP 429)${said}`, {
      ...base,
      retryable: true,
    });
  }
  if (status === 408 || status === 504) {
    return new ProviderError('timeout', `${provider} timed out (HTTP ${status})${said}`, {
      ...base,
      retryable: true,
    });
  }
  if (status >= 500) {
    return new ProviderError('upstream', `${provider} failed (HTTP ${status})${said}`, {
      ...base,
      retryable: true,
    });
  }
  return new ProviderError('upstream', `${provider} rejected the request (HTTP ${status})${said}`, base);
}

/** Reads a Retry-After header (seconds or an HTTP date) as milliseconds. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function abortedError(provider: string): ProviderError {
  return new ProviderError('aborted', `the request to ${provider} was aborted`);
}

/** The round ended without the model saying it finished: its tool calls must not run. */
export function cutOffError(provider: string, cause?: unknown): ProviderError {
  const why = cause instanceof Error ? ` (${cause.message})` : '';
  return new ProviderError(
    'upstream',
    `the stream from ${provider} broke off before the model finished${why}`,
    {
      cause,
    },
  );
}

/**
 * The model ran out of output tokens while it was writing a tool call: the call's
 * arguments are unfinished, so no call of the round runs, and the owner is told which
 * limit to raise.
 */
export function outputLimitError(provider: string, limit: string): ProviderError {
  return new ProviderError(
    'upstream',
    `${provider} reached its output limit (${limit}) while writing a tool call, so the call was not run; raise AALIS_MAX_OUTPUT_TOKENS or the model's limit`,
  );
}
