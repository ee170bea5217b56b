/**
 * The file and the environment: every setting a variable also makes, and the rule between
 * them: a variable that is set (not empty) wins over the file for what it names. The
 * provider's settings reach `providerFromEnv` as the variables they stand for, under the
 * environment's own, so that there is one way a provider is chosen and configured.
 */
import type { ConfigFile, ConfigFileSettings, ProviderSettings } from './config-file.js';
import { AUTH_VARIABLES } from '../identity/auth-config.js';
import { BUDGET_VARIABLES } from '../budgets/budget-config.js';
import { IP_LIMIT_VARIABLES, TRUST_PROXY_VARIABLE } from '../transport/ip-limits.js';
import { IMAGE_VARIABLES, VISION_VARIABLE } from '../images/image-config.js';
import { PROVIDER_KEY_VARIABLES, PROVIDER_URL_VARIABLES } from '../providers/from-env.js';

type Env = Record<string, string | undefined>;

/** The variables each provider reads its key and its address from: each provider's folder says. */
export { PROVIDER_KEY_VARIABLES, PROVIDER_URL_VARIABLES };

/** The other settings of the `provider` block, by the variable each stands for. */
const PROVIDER_VARIABLES: Array<[key: keyof ProviderSettings, variable: string]> = [
  ['name', 'AALIS_PROVIDER'],
  ['model', 'AALIS_MODEL'],
  ['maxOutputTokens', 'AALIS_MAX_OUTPUT_TOKENS'],
  ['reasoning', 'AALIS_REASONING'],
  ['firstByteTimeoutMs', 'AALIS_FIRST_BYTE_TIMEOUT_MS'],
  ['idleTimeoutMs', 'AALIS_IDLE_TIMEOUT_MS'],
  ['retryAfterMaxMs', 'AALIS_RETRY_AFTER_MAX_MS'],
];

/** The top-level settings a variable also makes, by that variable (README table). */
export const SETTING_VARIABLES: Array<[key: keyof ConfigFileSettings, variable: string]> = [
  ['port', 'PORT'],
  ['host', 'HOST'],
  ['publicHosts', 'AALIS_PUBLIC_HOSTS'],
  ['allowedOrigins', 'AALIS_ALLOWED_ORIGINS'],
  ['token', 'AALIS_TOKEN'],
  ['metricsToken', 'AALIS_METRICS_TOKEN'],
  ['dataDir', 'AALIS_DATA_DIR'],
  ['redisUrl', 'AALIS_REDIS_URL'],
  ['databaseUrl', 'AALIS_DATABASE_URL'],
  ['turnLeaseMs', 'AALIS_TURN_LEASE_MS'],
  ['logLevel', 'LOG_LEVEL'],
  ['maxToolArgumentChars', 'AALIS_MAX_TOOL_ARGUMENT_CHARS'],
];

/** Whether the environment sets `name`: a variable set to nothing counts as unset. */
export const isSet = (env: Env, name: string): boolean => Boolean(env[name]?.trim());

/** The `provider` block as the variables it stands for. */
export function providerVariables(provider: ProviderSettings = {}): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, variable] of PROVIDER_VARIABLES) {
    const value = provider[key];
    if (value !== undefined && value !== '') variables[variable] = String(value);
  }
  const keyVariable = provider.name && PROVIDER_KEY_VARIABLES[provider.name];
  if (keyVariable && provider.apiKey) variables[keyVariable] = provider.apiKey;
  const urlVariable = provider.name && PROVIDER_URL_VARIABLES[provider.name];
  if (urlVariable && provider.baseUrl) variables[urlVariable] = provider.baseUrl;
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
  const made = [
    ...Object.keys(providerVariables(file.settings.provider)),
    ...SETTING_VARIABLES.filter(([key]) => file.settings[key] !== undefined).map(([, variable]) => variable),
    ...AUTH_VARIABLES.filter(([key]) => file.settings.auth?.[key] !== undefined).map(
      ([, variable]) => variable,
    ),
    ...BUDGET_VARIABLES.filter(([key]) => file.settings.budgets?.[key] !== undefined).map(
      ([, variable]) => variable,
    ),
    ...IP_LIMIT_VARIABLES.filter(([key]) => file.settings.ipLimits?.[key] !== undefined).map(
      ([, variable]) => variable,
    ),
    ...(file.settings.ipLimits?.trustProxy !== undefined ? [TRUST_PROXY_VARIABLE] : []),
    ...IMAGE_VARIABLES.filter(([key]) => file.settings.images?.[key] !== undefined).map(
      ([, variable]) => variable,
    ),
    ...(file.settings.images?.vision !== undefined ? [VISION_VARIABLE] : []),
  ];
  return made.filter((variable) => isSet(env, variable));
}
