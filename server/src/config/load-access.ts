/**
 * Who may chat and how much, from the environment over the file's `auth`, `budgets` and
 * `ipLimits` blocks, each mistake one line naming where it is. Identity: a secret of at
 * least 32 bytes or a JWKS address (https, or http on loopback), never both; `required`
 * needs one.
 */
import { limitsFrom } from '../util/setting-values.js';
import {
  AUTH_MODES,
  MIN_SECRET_BYTES,
  type AuthConfig,
  type AuthMode,
  type AuthSettings,
} from '../identity/auth-config.js';
import { DEFAULT_BUDGETS, type BudgetLimits, type BudgetSettings } from '../budgets/budget-config.js';
import { DEFAULT_IP_LIMITS, type IpLimitSettings, type IpLimitValues } from '../transport/ip-limits.js';
import { Problems } from './problems.js';
import { blockVariables } from './settings/index.js';

type Env = Record<string, string | undefined>;

/**
 * The identity configuration from the environment over the file's `auth` block
 * (`fileLabel` names the file in mistakes); undefined when no secret or JWKS is set,
 * which keeps the server as it was (AALIS_TOKEN, if any).
 */
export function loadAuthConfig(env: Env, file?: AuthSettings, fileLabel = 'auth'): AuthConfig | undefined {
  const values: Partial<Record<keyof AuthSettings, { value: string; label: string }>> = {};
  for (const [key, variable] of blockVariables<keyof AuthSettings>('auth')) {
    const fromEnv = env[variable]?.trim();
    const fromFile = file?.[key]?.trim();
    if (fromEnv) values[key] = { value: fromEnv, label: variable };
    else if (fromFile) values[key] = { value: fromFile, label: `${fileLabel}.${key}` };
  }
  const { secret, jwksUrl, audience, issuer } = values;
  // Every mistake in the block, not only the first; a mode that is not one is said alone.
  const problems = new Problems();
  const mode = values.mode && AUTH_MODES.includes(values.mode.value as AuthMode) ? values.mode : undefined;
  if (values.mode && !mode)
    problems.add(
      `${values.mode.label} must be one of ${AUTH_MODES.join(', ')}; it is "${values.mode.value}"`,
    );
  if (!secret && !jwksUrl) {
    if (mode) problems.add(`${mode.label}=${mode.value} needs AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL`);
    const stray = audience ?? issuer;
    if (stray && !values.mode) problems.add(`${stray.label} needs AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL`);
    problems.throwFound();
    return undefined;
  }
  if (secret && jwksUrl) problems.add(`${secret.label} and ${jwksUrl.label}: set one of them, not both`);
  if (secret && Buffer.byteLength(secret.value) < MIN_SECRET_BYTES)
    problems.add(
      `${secret.label} must be at least ${MIN_SECRET_BYTES} bytes (openssl rand -base64 32 makes one)`,
    );
  if (jwksUrl && !jwksAddressAllowed(jwksUrl.value))
    problems.add(
      `${jwksUrl.label} must be an https:// URL (http:// only on loopback); it is "${jwksUrl.value}"`,
    );
  problems.throwFound();
  return {
    mode: (mode?.value as AuthMode | undefined) ?? 'optional',
    ...(secret ? { secret: secret.value } : {}),
    ...(jwksUrl ? { jwksUrl: jwksUrl.value } : {}),
    ...(audience ? { audience: audience.value } : {}),
    ...(issuer ? { issuer: issuer.value } : {}),
  };
}

/** https anywhere; http only to this machine, where nobody in between can swap the keys. */
export function jwksAddressAllowed(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * A block of limits from the environment over the file's block: each a whole number, 0
 * for no limit. Every variable's mistake is found (`problems`), not only the first.
 */
function limitsOf<Limits extends { [K in keyof Limits]: number }>(
  block: string,
  defaults: Limits,
  env: Env,
  file: Partial<Limits>,
  problems: Problems,
): Limits {
  const limits = { ...defaults };
  for (const entry of blockVariables<keyof Limits & string>(block)) {
    if (!(entry[0] in defaults)) continue;
    const found = problems.catch(() => limitsFrom([entry], defaults, env, file));
    if (found) limits[entry[0]] = found[entry[0]];
  }
  return limits;
}

/** The budgets from the environment over the file's `budgets` block; each mistake a line of one ConfigError. */
export function loadBudgetConfig(env: Env, file: BudgetSettings = {}): BudgetLimits {
  const problems = new Problems();
  const limits = limitsOf('budgets', DEFAULT_BUDGETS, env, file, problems);
  problems.throwFound();
  return limits;
}

/** The budgets and the per-IP limits, each mistake kept in `problems`. */
export function loadLimits(
  env: Env,
  budgets: BudgetSettings = {},
  ipLimits: IpLimitSettings = {},
  problems: Problems,
): { budgets: BudgetLimits; ipLimits: IpLimitValues } {
  return {
    budgets: limitsOf('budgets', DEFAULT_BUDGETS, env, budgets, problems),
    ipLimits: limitsOf('ipLimits', DEFAULT_IP_LIMITS, env, ipLimits, problems),
  };
}
