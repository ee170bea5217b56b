/**
 * Every setting of the server, once, in the order the file, `--help`, `--check` and the
 * README list them. Adding a setting is one entry in the file of its area; the schema
 * (`npm run schema -w @aalis/server`), the README's table and `--help` follow.
 */
import type { ProviderName } from '../../providers/from-env.js';
import {
  AUTH_BLOCK,
  AUTH_SETTINGS,
  BUDGETS_BLOCK,
  BUDGET_SETTINGS,
  IP_LIMITS_BLOCK,
  IP_LIMIT_SETTINGS,
} from './access.js';
import { AGENT_BLOCK, AGENT_SETTINGS } from './agent.js';
import { IMAGES_BLOCK, IMAGE_SETTINGS, PROMPT_SETTINGS, TOOL_SETTINGS } from './conversation.js';
import { PROVIDER_BLOCK, PROVIDER_SETTINGS } from './provider.js';
import { ADMIN_SETTINGS, CHALLENGE_BLOCK, CHALLENGE_SETTINGS } from './protection.js';
import { HANDOFF_BLOCK, HANDOFF_SETTINGS } from './handoff.js';
import { LISTEN_SETTINGS, STORAGE_SETTINGS } from './server.js';
import { keyPath, variable, type Block, type Setting } from './setting.js';

export { DEFINITIONS } from './conversation.js';
export { DEFAULT_DATA_DIR, IN_MEMORY, LOG_LEVELS } from './server.js';
export * from './setting.js';

/** The one setting only the environment makes: where the file is. */
const CONFIG_FILE_SETTING: Setting = {
  variables: [variable('AALIS_CONFIG', 'the configuration file, when --config names none')],
  schema: { type: 'string' },
  description: 'the configuration file (JSON), when --config names none.',
};

export const SETTINGS: readonly Setting[] = [
  ...PROVIDER_SETTINGS,
  ...AGENT_SETTINGS,
  ...LISTEN_SETTINGS,
  ...AUTH_SETTINGS,
  ...BUDGET_SETTINGS,
  ...IP_LIMIT_SETTINGS,
  ...ADMIN_SETTINGS,
  ...CHALLENGE_SETTINGS,
  ...HANDOFF_SETTINGS,
  ...STORAGE_SETTINGS,
  ...PROMPT_SETTINGS,
  ...IMAGE_SETTINGS,
  ...TOOL_SETTINGS,
  CONFIG_FILE_SETTING,
];

/** The file's blocks, by key. */
export const BLOCKS: Readonly<Record<string, Block>> = Object.fromEntries(
  [
    PROVIDER_BLOCK,
    AGENT_BLOCK,
    AUTH_BLOCK,
    BUDGETS_BLOCK,
    IP_LIMITS_BLOCK,
    CHALLENGE_BLOCK,
    HANDOFF_BLOCK,
    IMAGES_BLOCK,
  ].map((block) => [block.key, block]),
);

const BY_KEY = new Map(SETTINGS.filter((s) => s.key).map((s) => [s.key!, s]));

/** The setting at `key` (`auth.secret`); a key no setting has is a mistake in the code. */
export function setting(key: string): Setting {
  const found = BY_KEY.get(key);
  if (!found) throw new Error(`no setting ${key}`);
  return found;
}

/** The variable of the setting at `key` (one that has exactly one). */
export function variableOf(key: string): string {
  const { variables } = setting(key);
  if (variables.length !== 1) throw new Error(`setting ${key} has ${variables.length} variables`);
  return variables[0]!.name;
}

/** The settings of a block (`budgets`) as `[key in the block, variable]`, each with one variable. */
export function blockVariables<K extends string>(block: string): Array<[key: K, variable: string]> {
  return SETTINGS.filter((s) => s.key?.startsWith(`${block}.`) && s.variables.length === 1).map((s) => [
    keyPath(s.key!)[1] as K,
    s.variables[0]!.name,
  ]);
}

/** The variables a setting is made by with `provider` chosen: a provider's key or address only for it. */
export const variablesFor = (s: Setting, provider: ProviderName | undefined): string[] =>
  s.variables.filter((v) => !v.providers || (provider && v.providers.includes(provider))).map((v) => v.name);

/** The variable each provider reads the setting at `key` from (`provider.apiKey`: its key). */
export function providerVariables(key: string): Partial<Record<ProviderName, string>> {
  return Object.fromEntries(
    setting(key).variables.flatMap((v) => (v.providers ?? []).map((provider) => [provider, v.name])),
  );
}
