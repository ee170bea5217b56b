/**
 * Which provider to talk to, from the environment: `AALIS_PROVIDER` names one, or the
 * first provider whose key or host is set is used, or the demo model when none is.
 */
import { ConfigError, MAX_TIMER_MS, wholeNumber } from '../util/setting-values.js';
import { createDeepSeekProvider } from './deepseek.js';

export { ConfigError };
import { DemoProvider } from './demo/demo-provider.js';
import { DEMO_MODEL } from './demo/model-server.js';
import { OllamaProvider } from './ollama.js';
import { OpenAIProvider } from './openai.js';
import { AnthropicProvider, DEFAULT_ANTHROPIC_MAX_TOKENS } from './anthropic.js';
import { anthropicThinking, maxOutputTokens, responsesReasoning } from './model-effort.js';
import { OpenAIResponsesProvider } from './openai-responses.js';
import { DEFAULT_MAX_RETRY_AFTER_MS, defaultRetryPolicy, type RetryPolicy } from './retry.js';
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  type UpstreamTimeouts,
} from './round-stream.js';
import type { ChatProvider } from './types.js';

export const PROVIDER_NAMES = [
  'demo',
  'openai',
  'openai-responses',
  'anthropic',
  'deepseek',
  'ollama',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  demo: DEMO_MODEL,
  openai: 'gpt-4o-mini',
  'openai-responses': 'gpt-5-mini',
  anthropic: 'claude-haiku-4-5',
  deepseek: 'deepseek-chat',
  ollama: 'qwen3:8b',
};

export interface ProviderChoice {
  provider: ChatProvider;
  name: ProviderName;
  model: string;
  /** Closes what the provider runs in-process (the demo model's endpoint). */
  close(): Promise<void>;
}

type Env = Record<string, string | undefined>;

export function chooseProviderName(env: Env): ProviderName {
  const asked = env.AALIS_PROVIDER?.trim();
  if (asked) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(asked)) {
      throw new ConfigError(`AALIS_PROVIDER must be one of ${PROVIDER_NAMES.join(', ')}; it is "${asked}"`);
    }
    return asked as ProviderName;
  }
  if (env.OPENAI_API_KEY) return 'openai';
  if (env.ANTHROPIC_API_KEY) return 'anthropic';
  if (env.DEEPSEEK_API_KEY) return 'deepseek';
  if (env.OLLAMA_HOST) return 'ollama';
  return 'demo';
}

export function providerFromEnv(env: Env): ProviderChoice {
  const name = chooseProviderName(env);
  const model = env.AALIS_MODEL?.trim() || DEFAULT_MODELS[name];
  const required = (variable: string): string => {
    const value = env[variable]?.trim();
    if (!value) throw new ConfigError(`${variable} is required when AALIS_PROVIDER is ${name}`);
    return value;
  };
  const url = (variable: string): string | undefined => {
    const value = env[variable]?.trim();
    if (!value) return undefined;
    try {
      const parsed = new URL(value.includes('://') ? value : `http://${value}`);
      return parsed.toString().replace(/\/$/, '');
    } catch {
      throw new ConfigError(`${variable} must be a URL; it is "${value}"`);
    }
  };
  const patience = upstreamPatience(env);
  const fixed = (provider: ChatProvider): ProviderChoice => ({
    provider,
    name,
    model,
    close: async () => {},
  });
  switch (name) {
    case 'openai': {
      const baseURL = url('OPENAI_BASE_URL');
      return fixed(
        new OpenAIProvider({
          apiKey: required('OPENAI_API_KEY'),
          ...(baseURL ? { baseURL } : {}),
          ...patience,
        }),
      );
    }
    case 'openai-responses': {
      const baseURL = url('OPENAI_BASE_URL');
      const maxTokens = maxOutputTokens(env);
      const reasoning = responsesReasoning(env);
      return fixed(
        new OpenAIResponsesProvider({
          apiKey: required('OPENAI_API_KEY'),
          ...(baseURL ? { baseURL } : {}),
          ...(maxTokens ? { maxOutputTokens: maxTokens } : {}),
          ...(reasoning ? { reasoning } : {}),
          ...patience,
        }),
      );
    }
    case 'anthropic': {
      const baseURL = url('ANTHROPIC_BASE_URL');
      const maxTokens = maxOutputTokens(env) ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
      const thinking = anthropicThinking(env, maxTokens);
      return fixed(
        new AnthropicProvider({
          apiKey: required('ANTHROPIC_API_KEY'),
          ...(baseURL ? { baseURL } : {}),
          maxTokens,
          ...(thinking ? { thinking } : {}),
          ...patience,
        }),
      );
    }
    case 'deepseek': {
      const baseURL = url('DEEPSEEK_BASE_URL');
      return fixed(
        createDeepSeekProvider({
          apiKey: required('DEEPSEEK_API_KEY'),
          ...(baseURL ? { baseURL } : {}),
          ...patience,
        }),
      );
    }
    case 'ollama': {
      const host = url('OLLAMA_HOST');
      return fixed(new OllamaProvider({ ...(host ? { host } : {}), ...patience }));
    }
    case 'demo': {
      const demo = new DemoProvider();
      return { provider: demo, name, model, close: () => demo.close() };
    }
  }
}

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

/** How long to wait for the provider: the environment's choice, each in milliseconds. */
function upstreamPatience(env: Env): UpstreamTimeouts & { retry: RetryPolicy } {
  const [firstByte, idle, retryAfter] = UPSTREAM_TIMEOUT_VARIABLES.map(([name, fallback]) =>
    wholeNumber(env, name, fallback, { max: MAX_TIMER_MS, unit: 'milliseconds' }),
  ) as [number, number, number];
  return {
    firstByteTimeoutMs: firstByte,
    idleTimeoutMs: idle,
    retry: { ...defaultRetryPolicy, maxRetryAfterMs: retryAfter },
  };
}
