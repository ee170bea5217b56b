/**
 * Checks a visitor token (a JWT the site's backend signed) with `jose`. The algorithms
 * are fixed by the key the server holds: HS256 with a shared secret, RS256, ES256 or
 * EdDSA with a JWKS; `alg: none` and a token signed with another kind of key (a public
 * key used as an HMAC secret) never verify. Claims: `sub` (a string of 1 to 256
 * characters) and `exp` (at most 24 h away) are required, `nbf` and `iat` are honoured
 * with 30 s of clock tolerance, `aud` and `iss` are checked when configured; `name` is
 * optional. Why a token failed is returned for the log; the client is never told.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from './auth-config.js';
import { MAX_SUBJECT_CHARS, signedVisitor, type Visitor } from './visitor.js';

/**
 * A token's verdict. `expiresInMs`: how long until the token stops being accepted (its
 * `exp` plus the clock tolerance): the connection it opened ends then (4401).
 */
export type VerifyResult = { ok: true; visitor: Visitor; expiresInMs?: number } | { ok: false; why: string };

export interface TokenVerifier {
  verify(token: string): Promise<VerifyResult>;
}

/** Clock difference tolerated on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_S = 30;
/** The furthest `exp` may be: visitor tokens are short-lived. */
export const MAX_TOKEN_LIFETIME_S = 24 * 60 * 60;

export const HMAC_ALGORITHMS = ['HS256'];
export const PUBLIC_KEY_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

export interface TokenVerifierOptions {
  /** Seconds since the epoch (tests move it). */
  now?: () => number;
  /** How long a JWKS fetch may take (default 5 s). */
  jwksTimeoutMs?: number;
}

export function createTokenVerifier(
  config: Pick<AuthConfig, 'secret' | 'jwksUrl' | 'audience' | 'issuer'>,
  options: TokenVerifierOptions = {},
): TokenVerifier {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  let key: Uint8Array | JWTVerifyGetKey;
  let algorithms: string[];
  if (config.secret) {
    key = new TextEncoder().encode(config.secret);
    algorithms = HMAC_ALGORITHMS;
  } else if (config.jwksUrl) {
    // Cached; fetched again when a token names a key it does not hold (at most every 30 s).
    key = createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: options.jwksTimeoutMs ?? 5000 });
    algorithms = PUBLIC_KEY_ALGORITHMS;
  } else {
    throw new Error('a token verifier needs a secret or a JWKS URL');
  }

  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        const verifyOptions = {
          algorithms,
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(now() * 1000),
          requiredClaims: ['sub', 'exp'],
          ...(config.audience ? { audience: config.audience } : {}),
          ...(config.issuer ? { issuer: config.issuer } : {}),
        };
        // Two calls, so that each gets its own overload (a key, or a key set).
        ({ payload } =
          key instanceof Uint8Array
            ? await jwtVerify(token, key, verifyOptions)
            : await jwtVerify(token, key, verifyOptions));
      } catch (error) {
        return { ok: false, why: describe(error) };
      }
      const { sub, exp, iat, name } = payload;
      if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_SUBJECT_CHARS)
        return { ok: false, why: `sub must be a string of 1 to ${MAX_SUBJECT_CHARS} characters` };
      if (exp! > now() + MAX_TOKEN_LIFETIME_S + CLOCK_TOLERANCE_S)
        return { ok: false, why: 'exp is more than 24 h away' };
      // jose checks iat only against a maximum age: a token issued in the future is no better.
      if (iat !== undefined && iat > now() + CLOCK_TOLERANCE_S)
        return { ok: false, why: 'iat is in the future' };
      return {
        ok: true,
        visitor: signedVisitor(sub, typeof name === 'string' ? name : undefined),
        expiresInMs: Math.max(0, (exp! + CLOCK_TOLERANCE_S - now()) * 1000),
      };
    },
  };
}

/** jose's code and message (`ERR_JWT_EXPIRED: "exp" claim timestamp check failed`), for the log. */
function describe(error: unknown): string {
  if (error instanceof errors.JOSEError) return `${error.code}: ${error.message}`;
  return `not verifiable: ${(error as Error).message}`;
}
