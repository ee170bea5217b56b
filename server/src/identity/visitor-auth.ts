/**
 * Who a `hello` is from, by the identity mode: a valid token is its signed visitor; no
 * token is an anonymous visitor when the mode is `optional` and a refusal when it is
 * `required`; a token that does not verify is always a refusal (never silently
 * anonymous). Failures are counted per remote address and claimed subject (failure-throttle.ts). The
 * reason of a refusal is for the log only. An anonymous visitor is the one its
 * `anonymousKey` names when the server issued that key; otherwise a new key is issued
 * (anonymous-key.ts): an invalid key is never a refusal.
 *
 * With neither a secret nor a JWKS (the default) there is nothing to check a token with:
 * every visitor is anonymous, bound to the key the server issued it, and a hello that
 * carries a token is refused (a site that sends visitor tokens to a server that cannot
 * check them is misconfigured; treating them as anonymous would hide it).
 */
import { decodeJwt } from 'jose';
import { createAnonymousKeys, type AnonymousKeys } from './anonymous-key.js';
import type { AuthConfig, AuthMode } from './auth-config.js';
import { FailureThrottle, type FailureThrottleOptions } from './failure-throttle.js';
import {
  createTokenVerifier,
  type TokenVerifier,
  type TokenVerifierOptions,
  type VerifyResult,
} from './token-verifier.js';
import { anonymousVisitor, type Visitor } from './visitor.js';

/** Who a hello is from; a signed visitor's `expiresInMs` says when its token stops being accepted. */
export type IdentifyResult = VerifyResult;

export interface VisitorAuth {
  readonly mode: AuthMode;
  /** Whether a hello's token is a visitor token this server checks (a secret or a JWKS is set). */
  readonly checksTokens: boolean;
  /**
   * The visitor a hello's token (or its absence) stands for, from `remoteAddress`; without
   * a token, the anonymous visitor its `anonymousKey` names (or a new one).
   */
  identify(
    token: string | undefined,
    remoteAddress: string | undefined,
    anonymousKey?: string,
  ): Promise<IdentifyResult>;
}

/** What every refused hello is told, whichever check failed. */
export const VISITOR_REFUSED_REASON = 'a valid visitor token is required';

export interface VisitorAuthOptions extends TokenVerifierOptions {
  /** Failed checks per address (default: 10 a minute). */
  throttle?: FailureThrottleOptions;
  /** Instead of one made from the configuration (tests). */
  verifier?: TokenVerifier;
  /**
   * Anonymous visitor keys; by default from the configuration's secret, else kept in
   * `dataDir`, else random for the process.
   */
  anonymousKeys?: AnonymousKeys;
  /** Where the anonymous key's server key is kept when there is no secret (the history's directory). */
  dataDir?: string;
}

export function createVisitorAuth(config: AuthConfig, options: VisitorAuthOptions = {}): VisitorAuth {
  const checksTokens = Boolean(options.verifier ?? config.secret ?? config.jwksUrl);
  const verifier = options.verifier ?? (checksTokens ? createTokenVerifier(config, options) : undefined);
  const throttle = new FailureThrottle(options.throttle);
  // Made at start (a broken key file is a start-up failure), and only where anonymous visitors are.
  const keys =
    config.mode === 'optional'
      ? (options.anonymousKeys ??
        createAnonymousKeys({ secret: config.secret, dataDir: options.dataDir ?? config.dataDir }))
      : undefined;
  const anonymous = (key: string | undefined): Visitor => {
    if (!keys) throw new Error('anonymous visitors need keys');
    const id = key === undefined ? undefined : keys.check(key);
    if (id !== undefined) return anonymousVisitor(id);
    const issued = keys.issue();
    return anonymousVisitor(issued.id, issued.key);
  };
  return {
    mode: config.mode,
    checksTokens,
    async identify(token, remoteAddress, anonymousKey) {
      if (!token) {
        return config.mode === 'required'
          ? { ok: false, why: 'no token' }
          : { ok: true, visitor: anonymous(anonymousKey) };
      }
      if (!verifier)
        return {
          ok: false,
          why: 'a token was sent, but no AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL is set to check it',
        };
      // Failures count per address and the subject the token claims (unverified): a
      // script guessing at one subject stops only that subject from this address, never
      // the valid visitors who share the address (an office, a school, a mobile carrier).
      const key = `${remoteAddress ?? 'unknown'} ${claimedSubject(token)}`;
      if (throttle.blocked(key))
        return { ok: false, why: 'too many failed tokens for this subject from this address: not checked' };
      const result = await verifier.verify(token);
      if (!result.ok) throttle.failed(key);
      return result;
    },
  };
}

/**
 * The `sub` a token claims, read without verifying it (only to key the failure count);
 * `-` for a token that is not a JWT or claims none.
 */
function claimedSubject(token: string): string {
  try {
    const { sub } = decodeJwt(token);
    return typeof sub === 'string' ? sub.slice(0, 256) : '-';
  } catch {
    return '-';
  }
}
