/**
 * The `openai` SDK client as both OpenAI APIs use it (Chat Completions in provider.ts, the
 * Responses API in ../openai-responses/), and the reading of its errors as typed
 * `ProviderError`s: one place that knows the SDK's error classes.
 */
import OpenAI from 'openai';
import { ProviderError } from '../core/errors.js';
import { sdkRequestError } from '../core/sdk-errors.js';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS } from '../core/round-stream.js';
import { httpFetch } from '../core/http-fetch.js';

export function createOpenAIClient(options: {
  apiKey: string;
  baseURL?: string | undefined;
  firstByteTimeoutMs?: number | undefined;
}): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    // Retries are ours, and only before the first byte (see retry.ts); so is the
    // first-byte deadline (round-stream.ts): the SDK's is only a backstop behind it.
    maxRetries: 0,
    timeout: (options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS) + 5_000,
    logLevel: 'off',
    // Node's keep-alive sockets with the body as a Node stream: less work per fragment
    // than the global fetch's web streams (http-fetch.ts).
    fetch: httpFetch,
  });
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
