/**
 * What one setting is, said once: where the configuration file holds it, the environment
 * variables that set it, its type and allowed values (as JSON Schema), its default, what
 * it means and whether it is a secret. `--help`, `--check`, the published JSON Schema and
 * the README's table are all made from these descriptions (settings/index.ts lists them).
 */
import type { ProviderName } from '../../providers/from-env.js';

/** A piece of JSON Schema (draft-07), as the published schema holds it. */
export type JsonSchema = Record<string, unknown>;

/** An environment variable that sets a setting (a variable that is set wins over the file). */
export interface Variable {
  name: string;
  /** Its line in `aalis-server --help`. */
  help: string;
  /** Its default as `--help` says it, when it is not the setting's. */
  fallback?: string;
  /** The providers it is read for: a provider's key or address, by `provider.name`. */
  providers?: readonly ProviderName[];
}

export interface Setting {
  /** Its place in the configuration file (`port`, `auth.secret`); none for what only the environment sets. */
  key?: string;
  /** The variables that set it; none for what only the file sets. */
  variables: readonly Variable[];
  /** Its type and allowed values in the file, as JSON Schema (without `description`). */
  schema: JsonSchema;
  /** What it is: the schema's description and the README's, after the variables' names. */
  description: string;
  /** Its default value, as the loader uses it (a number, a name). */
  default?: number | string;
  /** Its default as people read it, when `default` alone does not say it. */
  fallback?: string;
  /** What `--check` hides: `secret` the whole value, `url` a URL's password and secret query values. */
  mask?: 'secret' | 'url';
  /** The unit a mistake in its variable names (`a whole number of ms`). */
  unit?: string;
}

/** A block of the file (`provider`, `auth`, ...): what it is, and what holds between its keys. */
export interface Block {
  key: string;
  description: string;
  /** Schema keywords of the block itself (`dependencies`). */
  schema?: JsonSchema;
}

/** A variable with its `--help` line. */
export const variable = (
  name: string,
  help: string,
  more: Omit<Variable, 'name' | 'help'> = {},
): Variable => ({
  name,
  help,
  ...more,
});

/** The default as people read it: the description's own words, else the value. */
export const fallbackOf = (setting: Setting): string | undefined =>
  setting.fallback ?? (setting.default === undefined ? undefined : String(setting.default));

/** The path of a key (`auth.secret`) as its steps. */
export const keyPath = (key: string): string[] => key.split('.');
