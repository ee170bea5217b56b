/**
 * The owner's protections from the environment over the file: the admin token of the
 * pause switch and the bot challenge, each mistake one line naming where it is.
 */
import {
  CHALLENGE_ENDPOINTS,
  CHALLENGE_PROVIDERS,
  type ChallengeConfig,
  type ChallengeProvider,
  type ChallengeSettings,
} from '../identity/challenge-config.js';
import { jwksAddressAllowed } from './load-access.js';
import type { Problems } from './problems.js';
import { blockVariables, variableOf } from './settings/index.js';

type Env = Record<string, string | undefined>;

/** Shorter tokens are guessable from the network: the switch stops a whole site. */
export const MIN_ADMIN_TOKEN_CHARS = 16;

/** `AALIS_ADMIN_TOKEN` over the file's `adminToken`; undefined when neither is set. */
export function loadAdminToken(
  env: Env,
  fromFile: string | undefined,
  problems: Problems,
): string | undefined {
  const variable = variableOf('adminToken');
  const token = env[variable]?.trim() || fromFile?.trim() || undefined;
  if (token !== undefined && token.length < MIN_ADMIN_TOKEN_CHARS)
    problems.add(
      `${variable} must be at least ${MIN_ADMIN_TOKEN_CHARS} characters (openssl rand -base64 24 makes one)`,
    );
  return token;
}

/**
 * The challenge from `AALIS_CHALLENGE*` over the file's `challenge` block; undefined when
 * no provider is named. A provider needs its secret and site key; the verify URL must be
 * https (http only on loopback, for a verifier of your own in tests).
 */
export function loadChallenge(
  env: Env,
  file: ChallengeSettings = {},
  problems: Problems,
): ChallengeConfig | undefined {
  const values: Partial<Record<keyof ChallengeConfig, { value: string; label: string }>> = {};
  for (const [key, variable] of blockVariables<keyof ChallengeConfig>('challenge')) {
    const fromEnv = env[variable]?.trim();
    const fromFile = file[key]?.trim();
    if (fromEnv) values[key] = { value: fromEnv, label: variable };
    else if (fromFile) values[key] = { value: fromFile, label: `challenge.${key}` };
  }
  const { provider, secret, siteKey, verifyUrl, scriptUrl } = values;
  if (!provider) {
    const stray = secret ?? siteKey ?? verifyUrl ?? scriptUrl;
    if (stray) problems.add(`${stray.label} needs AALIS_CHALLENGE (${CHALLENGE_PROVIDERS.join(' or ')})`);
    return undefined;
  }
  if (!CHALLENGE_PROVIDERS.includes(provider.value as ChallengeProvider)) {
    problems.add(
      `${provider.label} must be one of ${CHALLENGE_PROVIDERS.join(', ')}; it is "${provider.value}"`,
    );
    return undefined;
  }
  const name = provider.value as ChallengeProvider;
  if (!secret) problems.add(`${provider.label}=${name} needs AALIS_CHALLENGE_SECRET`);
  if (!siteKey) problems.add(`${provider.label}=${name} needs AALIS_CHALLENGE_SITE_KEY`);
  for (const url of [verifyUrl, scriptUrl])
    if (url && !jwksAddressAllowed(url.value))
      problems.add(`${url.label} must be an https:// URL (http:// only on loopback); it is "${url.value}"`);
  if (!secret || !siteKey) return undefined;
  const defaults = CHALLENGE_ENDPOINTS[name];
  return {
    provider: name,
    secret: secret.value,
    siteKey: siteKey.value,
    verifyUrl: verifyUrl?.value ?? defaults.verifyUrl,
    scriptUrl: scriptUrl?.value ?? defaults.scriptUrl,
  };
}
