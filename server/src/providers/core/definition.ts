/**
 * What a back-end registers in `providers/registry.ts`: its name, the settings it reads
 * (with their defaults, for `--help`, `--check` and the README), and a factory that makes
 * its `ChatProvider` from those settings: anything that streams one round's text,
 * reasoning and tool calls as `ProviderChunk`s for the built-in agent to run the tools
 * of. An agent running elsewhere runs its own tools: it is upstream/'s (see registry.ts).
 */
import type { RetryPolicy } from './retry.js';
import type { UpstreamTimeouts } from './round-stream.js';
import type { ChatProvider } from './types.js';

export type Env = Record<string, string | undefined>;

/** One environment variable a back-end reads. */
export interface SettingDescription {
  variable: string;
  /** Its value when unset, as a person reads it (`''` for none). */
  fallback: string;
  meaning: string;
  /**
   * `key`: the secret it authenticates with; `url`: the address it talks to. Configuration
   * files name these by role (`provider.apiKey`, `provider.baseUrl`) and mask the key.
   */
  role?: 'key' | 'url';
}

/** The environment as a factory reads it, with the checks every back-end shares. */
export interface ProviderSettings {
  /** Every variable, for settings of the back-end's own (`AALIS_REASONING`). */
  readonly env: Env;
  /** The model asked for (`AALIS_MODEL`), or the back-end's default. */
  readonly model: string;
  /** The variable's trimmed value; a `ConfigError` naming it when unset. */
  required(variable: string): string;
  /** The variable as a URL without its trailing slash; undefined when unset, a `ConfigError` when not a URL. */
  url(variable: string): string | undefined;
  /** How long to wait for the upstream and how to retry it: the same variables for every back-end. */
  readonly patience: UpstreamTimeouts & { retry: RetryPolicy };
}

/** What a factory made: the provider, and how to close what it runs in-process. */
export interface CreatedProvider {
  provider: ChatProvider;
  close?(): Promise<void>;
}

export interface ProviderDefinition<Name extends string = string> {
  /** What `AALIS_PROVIDER` names it by, and `ChatProvider.name` says in logs. */
  readonly name: Name;
  /** The model when `AALIS_MODEL` is unset. */
  readonly defaultModel: string;
  /** The variables it reads, its own only (the upstream timeouts are everyone's). */
  readonly settings: readonly SettingDescription[];
  /**
   * Without `AALIS_PROVIDER`, it is chosen when this variable is set (the first such
   * entry of the registry wins). Unset: only ever chosen by name.
   */
  readonly selectedBy?: string;
  /** Makes the provider; throws a `ConfigError` for a setting that is missing or wrong. */
  create(settings: ProviderSettings): CreatedProvider;
}

/** A definition, its name kept as a literal type (so the registry can list the names). */
export const defineProvider = <const Name extends string>(
  definition: ProviderDefinition<Name>,
): ProviderDefinition<Name> => definition;
