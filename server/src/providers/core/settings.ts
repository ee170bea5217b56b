/**
 * The settings every back-end shares, read from the environment: how long the upstream
 * may keep us waiting, the longest answer of a round, and the checks of a required
 * variable and of an address. A back-end's own settings live in its folder.
 */
import { ConfigError, MAX_TIMER_MS, wholeNumber } from '../../util/setting-values.js';
import type { Env, ProviderSettings } from './definition.js';
import { DEFAULT_MAX_RETRY_AFTER_MS, defaultRetryPolicy, type RetryPolicy } from './retry.js';
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  type UpstreamTimeouts,
} from './round-stream.js';

/** Variables of how long the server waits for a provider, with their defaults. */
export const UPSTREAM_TIMEOUT_VARIABLES: Array<[name: string, fallbackMs: number, meaning: string]> = [
  [
    'AALIS_FIRST_BYTE_TIMEOUT_MS',
    DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    'how long one model request may wait for its response to start; then it is retried (twice)',
  ],
  [
    'AALIS_IDLE_TIMEOUT_MS',
    DEFAULT_IDLE_TIMEOUT_MS,
    'how long a started answer may stay silent (raise it for models that think silently for long)',
  ],
  [
    'AALIS_RETRY_AFTER_MAX_MS',
    DEFAULT_MAX_RETRY_AFTER_MS,
    'longest Retry-After honoured; a provider asking for more fails the turn at once',
  ],
];

/** How long to wait for the provider (or an upstream agent): the environment's choice, each in milliseconds. */
export function upstreamPatience(env: Env): UpstreamTimeouts & { retry: RetryPolicy } {
  const [firstByte, idle, retryAfter] = UPSTREAM_TIMEOUT_VARIABLES.map(([name, fallback]) =>
    wholeNumber(env, name, fallback, { max: MAX_TIMER_MS, unit: 'milliseconds' }),
  ) as [number, number, number];
  return {
    firstByteTimeoutMs: firstByte,
    idleTimeoutMs: idle,
    retry: { ...defaultRetryPolicy, maxRetryAfterMs: retryAfter },
  };
}

/** The settings a factory reads, for the back-end `name` running `model`. */
export function providerSettings(name: string, env: Env, model: string): ProviderSettings {
  return {
    env,
    model,
    required(variable) {
      const value = env[variable]?.trim();
      if (!value) throw new ConfigError(`${variable} is required when AALIS_PROVIDER is ${name}`);
      return value;
    },
    url(variable) {
      const value = env[variable]?.trim();
      if (!value) return undefined;
      try {
        const parsed = new URL(value.includes('://') ? value : `http://${value}`);
        return parsed.toString().replace(/\/$/, '');
      } catch {
        throw new ConfigError(`${variable} must be a URL; it is "${value}"`);
      }
    },
    patience: upstreamPatience(env),
  };
}

const MAX_OUTPUT_TOKENS = 1_000_000;

/**
 * `AALIS_MAX_OUTPUT_TOKENS`: the longest answer of one round, for the back-ends that take
 * one (each says it in its own API's words); undefined when unset.
 */
export const maxOutputTokens = (env: Env): number | undefined => {
  const tokens = wholeNumber(env, 'AALIS_MAX_OUTPUT_TOKENS', 0, { max: MAX_OUTPUT_TOKENS, unit: 'tokens' });
  return tokens || undefined;
};
