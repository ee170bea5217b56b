/**
 * Anthropic's failures as typed `ProviderError`s: the SDK's error classes when a request
 * is opened, and the `error` events of its stream (`overloaded_error` is worth a retry).
 */
import Anthropic from '@anthropic-ai/sdk';
import { ProviderError } from '../core/errors.js';
import { sdkRequestError } from '../core/sdk-errors.js';

export function requestError(provider: string, error: unknown, signal: AbortSignal): ProviderError {
  return sdkRequestError<InstanceType<typeof Anthropic.APIError>>(
    provider,
    error,
    signal,
    Anthropic,
    (api) => api.apiMessage ?? '',
    (other) => {
      if (other instanceof Anthropic.APIError) {
        // An `error` event before anything streamed: overloaded or rate limited, worth another try.
        const retryable = ['overloaded_error', 'rate_limit_error', 'api_error'].includes(other.type ?? '');
        return new ProviderError(
          'upstream',
          `${provider} reported ${other.type ?? 'an error'}: ${other.apiMessage ?? other.message}`,
          { retryable, cause: other },
        );
      }
      return (
        midStreamError(provider, other) ??
        new ProviderError('upstream', `${provider} request failed: ${String(other)}`, { cause: other })
      );
    },
  );
}

/** An error the SDK threw while the stream was read; undefined when it is just a broken stream. */
export function midStreamError(provider: string, error: unknown): ProviderError | undefined {
  if (error instanceof SyntaxError) {
    return new ProviderError('bad_response', `${provider} sent a stream event that is not valid JSON`, {
      cause: error,
    });
  }
  if (error instanceof Anthropic.APIError) {
    return new ProviderError(
      'upstream',
      `${provider} reported an error mid-stream: ${error.type ?? 'error'}: ${error.apiMessage ?? error.message}`,
      { cause: error },
    );
  }
  return undefined;
}
