/**
 * What identity is configured with: a shared secret or a JWKS, the mode and the token's
 * audience and issuer. Read from `AALIS_AUTH*` and the configuration file's `auth` block
 * by config/load-access.ts.
 */

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
