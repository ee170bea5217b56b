/**
 * Which provider to talk to, from the environment: `AALIS_PROVIDER` names one, or the
 * first provider of the registry whose key or host is set is used, or the demo model when
 * none is. Everything about each provider is in its folder; this reads the registry.
 */
import { ConfigError } from '../util/setting-values.js';
import type { Env, ProviderDefinition } from './core/definition.js';
import { providerSettings } from './core/settings.js';
import type { ChatProvider } from './core/types.js';
import { DEFAULT_PROVIDER, PROVIDERS, type ProviderName } from './registry.js';

export { ConfigError, type ProviderName };
export { UPSTREAM_TIMEOUT_VARIABLES } from './core/settings.js';

export const PROVIDER_NAMES: readonly ProviderName[] = PROVIDERS.map((provider) => provider.name);

const definitions = new Map<string, ProviderDefinition<ProviderName>>(
  PROVIDERS.map((provider) => [provider.name, provider]),
);

/** Each provider's model when `AALIS_MODEL` is unset. */
export const DEFAULT_MODELS = Object.fromEntries(
  PROVIDERS.map((provider) => [provider.name, provider.defaultModel]),
) as Record<ProviderName, string>;

export interface ProviderChoice {
  provider: ChatProvider;
  name: ProviderName;
  model: string;
  /** Closes what the provider runs in-process (the demo model's endpoint). */
  close(): Promise<void>;
}

export function chooseProviderName(env: Env): ProviderName {
  const asked = env.AALIS_PROVIDER?.trim();
  if (asked) {
    if (!definitions.has(asked)) {
      throw new ConfigError(`AALIS_PROVIDER must be one of ${PROVIDER_NAMES.join(', ')}; it is "${asked}"`);
    }
    return asked as ProviderName;
  }
  const selected = PROVIDERS.find((provider) => provider.selectedBy && env[provider.selectedBy]);
  return selected?.name ?? DEFAULT_PROVIDER;
}

export function providerFromEnv(env: Env): ProviderChoice {
  const name = chooseProviderName(env);
  const model = env.AALIS_MODEL?.trim() || DEFAULT_MODELS[name];
  const { provider, close } = definitions.get(name)!.create(providerSettings(name, env, model));
  return { provider, name, model, close: close ?? (async () => {}) };
}
