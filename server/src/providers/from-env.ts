/**
 * Which provider to talk to, from the environment: `AALIS_PROVIDER` names one, or the
 * first provider whose key or host is set is used, or the demo model when none is.
 */
import { createDeepSeekProvider } from './deepseek.js';
import { DemoProvider } from './demo/demo-provider.js';
import { DEMO_MODEL } from './demo/model-server.js';
import { OllamaProvider } from './ollama.js';
import { OpenAIProvider } from './openai.js';
import type { ChatProvider } from './types.js';

export const PROVIDER_NAMES = ['demo', 'openai', 'deepseek', 'ollama'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  demo: DEMO_MODEL,
  openai: 'gpt-4o-mini',
  deepseek: 'deepseek-chat',
  ollama: 'qwen3:8b',
};

/** A configuration mistake, said in one line that names the variable to fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

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
        new OpenAIProvider({ apiKey: required('OPENAI_API_KEY'), ...(baseURL ? { baseURL } : {}) }),
      );
    }
    case 'deepseek': {
      const baseURL = url('DEEPSEEK_BASE_URL');
      return fixed(
        createDeepSeekProvider({ apiKey: required('DEEPSEEK_API_KEY'), ...(baseURL ? { baseURL } : {}) }),
      );
    }
    case 'ollama': {
      const host = url('OLLAMA_HOST');
      return fixed(new OllamaProvider(host ? { host } : {}));
    }
    case 'demo': {
      const demo = new DemoProvider();
      return { provider: demo, name, model, close: () => demo.close() };
    }
  }
}
