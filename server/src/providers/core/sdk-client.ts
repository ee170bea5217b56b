import { httpFetch } from './http-fetch.js';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS } from './round-stream.js';

/**
 * The options both vendor SDKs (openai, @anthropic-ai/sdk) are built with: retries are
 * ours, and only before the first byte (retry.ts); so is the first-byte deadline
 * (round-stream.ts), the SDK's timeout only a backstop behind it; no SDK logging; and the
 * keep-alive transport above, whose Node streams cost less per fragment than the global
 * fetch's web streams.
 */
export function sdkClientOptions(options: {
  apiKey: string;
  baseURL?: string | undefined;
  firstByteTimeoutMs?: number | undefined;
}) {
  return {
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    timeout: (options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS) + 5_000,
    logLevel: 'off' as const,
    fetch: httpFetch,
  };
}
