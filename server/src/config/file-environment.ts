/**
 * The file and the environment: every setting a variable also makes, and the rule between
 * them: a variable that is set (not empty) wins over the file for what it names. The
 * provider's settings reach `providerFromEnv` as the variables they stand for, under the
 * environment's own, so that there is one way a provider is chosen and configured. Which
 * variable stands for which key is read from the settings' descriptions.
 */
import type { ConfigFile, ProviderSettings } from './config-file.js';
import type { ProviderName } from '../providers/from-env.js';
import {
  SETTINGS,
  keyPath,
  providerVariables as variablesByProvider,
  variablesFor,
} from './settings/index.js';

type Env = Record<string, string | undefined>;

/** The variable each provider reads its key from (ollama and demo take none). */
export const PROVIDER_KEY_VARIABLES = variablesByProvider('provider.apiKey');

/** The variable each provider reads its address from (demo runs in-process). */
export const PROVIDER_URL_VARIABLES = variablesByProvider('provider.baseUrl');

/** Whether the environment sets `name`: a variable set to nothing counts as unset. */
export const isSet = (env: Env, name: string): boolean => Boolean(env[name]?.trim());

/** The value at a key's path (`auth.secret`) of the file's settings. */
function valueAt(settings: object, key: string): unknown {
  let node: unknown = settings;
  for (const step of keyPath(key)) node = (node as Record<string, unknown> | undefined)?.[step];
  return node;
}

/** The settings the file makes, each with the variables that stand for it. */
function madeByFile(
  settings: object,
  provider: ProviderName | undefined,
): Array<[value: unknown, variables: string[]]> {
  return SETTINGS.filter((s) => s.key && s.variables.length)
    .map((s): [unknown, string[]] => [valueAt(settings, s.key!), variablesFor(s, provider)])
    .filter(([value]) => value !== undefined);
}

/** The `provider` block as the variables it stands for. */
export function providerVariables(provider: ProviderSettings = {}): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [value, names] of madeByFile({ provider }, provider.name)) {
    if (value === '') continue;
    for (const name of names) variables[name] = String(value);
  }
  return variables;
}

/** `env` with the file's provider settings added where it sets nothing: what `providerFromEnv` reads. */
export function withFileProvider(env: Env, file: ConfigFile | undefined): Env {
  const merged: Env = { ...env };
  for (const [variable, value] of Object.entries(providerVariables(file?.settings.provider))) {
    if (!isSet(env, variable)) merged[variable] = value;
  }
  return merged;
}

/** The variables that win over a setting the file makes, for `--check` to say so. */
export function overriddenByEnvironment(env: Env, file: ConfigFile): string[] {
  return madeByFile(file.settings, file.settings.provider?.name)
    .flatMap(([, variables]) => variables)
    .filter((variable) => isSet(env, variable));
}
