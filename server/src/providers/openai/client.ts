/**
 * The `openai` SDK client as both OpenAI APIs use it (Chat Completions in provider.ts, the
 * Responses API in ../openai-responses/), and the reading of its errors as typed
 * `ProviderError`s: one place that knows the SDK's error classes.
 */
import OpenAI from 'openai';
import { ProviderError } from '../core/errors.js';
import { sdkRequestError } from '../core/sdk-errors.js';
import { sdkClientOptions } from '../core/sdk-client.js';

export function createOpenAIClient(options: {
  apiKey: string;
  baseURL?: string | undefined;
  firstByteTimeoutMs?: number | undefined;
}): OpenAI {
  return new OpenAI(sdkClientOptions(options));
}

/** Why opening a request failed, typed (retryable where a retry may help). */
export const openAIRequestError = (provider: string, error: unknown, signal: AbortSignal): ProviderError =>
  sdkRequestError<InstanceType<typeof OpenAI.APIError>>(
    provider,
    error,
    signal,
    OpenAI,
    (api) => (api.error as { message?: string } | undefined)?.message ?? '',
  );

/** An error the SDK threw while the stream was read; undefined when it is just a broken stream. */
export function openAIMidStreamError(provider: string, error: unknown): ProviderError | undefined {
  if (error instanceof SyntaxError) {
    return new ProviderError('bad_response', `${provider} sent a stream chunk that is not valid JSON`, {
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError) {
    // An `error` object inside the stream: the provider gave up mid-answer.
    return new ProviderError('upstream', `${provider} reported an error mid-stream: ${error.message}`, {
      cause: error,
    });
  }
  return undefined;
}
