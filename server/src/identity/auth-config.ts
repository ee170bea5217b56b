/**
 * The identity settings (`AALIS_AUTH*`, or the configuration file's `auth` block) and
 * their rules, each mistake one line naming where it is: a secret of at least 32 bytes
 * or a JWKS address (https, or http on loopback), never both; `required` needs one.
 */
import { ConfigError } from '../util/setting-values.js';

export type AuthMode = 'required' | 'optional';

export const AUTH_MODES: readonly AuthMode[] = ['required', 'optional'];

/** How visitor tokens are checked: with a shared secret (HS256) or a JWKS (RS256, ES256, EdDSA). */
export interface AuthConfig {
  /** `required`: no valid token, no chat. `optional` (the default): no token is an anonymous visitor. */
  mode: AuthMode;
  /** HS256 secret shared with the site's backend, at least 32 bytes. */
  secret?: string;
  /** Where the site's public keys are published (a JWKS); fetched, cached and refreshed. */
  jwksUrl?: string;
  /** When set, a token's `aud` must name it. */
  audience?: string;
  /** When set, a token's `iss` must be it. */
  issuer?: string;
  /**
   * Where the server key of anonymous visitor keys is kept (`anonymous-key`, 0600) when
   * there is no secret: the history's data directory. Without it (and a secret) anonymous
   * keys last as long as the process.
   */
  dataDir?: string;
}

/** The shortest secret accepted, in bytes (HS256's own key size). */
export const MIN_SECRET_BYTES = 32;

/** The configuration file's `auth` block. */
export interface AuthSettings {
  mode?: AuthMode;
  secret?: string;
  jwksUrl?: string;
  audience?: string;
  issuer?: string;
}

/** Each setting of the block by the variable that wins over it. */
export const AUTH_VARIABLES: Array<[key: keyof AuthSettings, variable: string]> = [
  ['mode', 'AALIS_AUTH'],
  ['secret', 'AALIS_AUTH_SECRET'],
  ['jwksUrl', 'AALIS_AUTH_JWKS_URL'],
  ['audience', 'AALIS_AUTH_AUDIENCE'],
  ['issuer', 'AALIS_AUTH_ISSUER'],
];

type Env = Record<string, string | undefined>;

/**
 * The identity configuration from the environment over the file's `auth` block
 * (`fileLabel` names the file in mistakes); undefined when no secret or JWKS is set,
 * which keeps the server as it was (AALIS_TOKEN, if any).
 */
export function loadAuthConfig(env: Env, file?: AuthSettings, fileLabel = 'auth'): AuthConfig | undefined {
  const values: Partial<Record<keyof AuthSettings, { value: string; label: string }>> = {};
  for (const [key, variable] of AUTH_VARIABLES) {
    const fromEnv = env[variable]?.trim();
    const fromFile = file?.[key]?.trim();
    if (fromEnv) values[key] = { value: fromEnv, label: variable };
    else if (fromFile) values[key] = { value: fromFile, label: `${fileLabel}.${key}` };
  }
  const { mode, secret, jwksUrl, audience, issuer } = values;
  if (mode && !AUTH_MODES.includes(mode.value as AuthMode))
    throw new ConfigError(`${mode.label} must be one of ${AUTH_MODES.join(', ')}; it is "${mode.value}"`);
  if (!secret && !jwksUrl) {
    if (mode)
      throw new ConfigError(`${mode.label}=${mode.value} needs AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL`);
    const stray = audience ?? issuer;
    if (stray) throw new ConfigError(`${stray.label} needs AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL`);
    return undefined;
  }
  if (secret && jwksUrl)
    throw new ConfigError(`${secret.label} and ${jwksUrl.label}: set one of them, not both`);
  if (secret && Buffer.byteLength(secret.value) < MIN_SECRET_BYTES)
    throw new ConfigError(
      `${secret.label} must be at least ${MIN_SECRET_BYTES} bytes (openssl rand -base64 32 makes one)`,
    );
  if (jwksUrl && !jwksAddressAllowed(jwksUrl.value))
    throw new ConfigError(
      `${jwksUrl.label} must be an https:// URL (http:// only on loopback); it is "${jwksUrl.value}"`,
    );
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
