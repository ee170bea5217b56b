/**
 * Who a `hello` is from, by the identity mode: a valid token is its signed visitor; no
 * token is an anonymous visitor when the mode is `optional` and a refusal when it is
 * `required`; a token that does not verify is always a refusal (never silently
 * anonymous). Failures are counted per remote address (failure-throttle.ts). The
 * reason of a refusal is for the log only.
 */
import type { AuthConfig, AuthMode } from './auth-config.js';
import { FailureThrottle, type FailureThrottleOptions } from './failure-throttle.js';
import { createTokenVerifier, type TokenVerifier, type TokenVerifierOptions } from './token-verifier.js';
import { anonymousVisitor, type Visitor } from './visitor.js';

export type IdentifyResult = { ok: true; visitor: Visitor } | { ok: false; why: string };

export interface VisitorAuth {
  readonly mode: AuthMode;
  /** The visitor a hello's token (or its absence) stands for, from `remoteAddress`. */
  identify(token: string | undefined, remoteAddress: string | undefined): Promise<IdentifyResult>;
}

/** What every refused hello is told, whichever check failed. */
export const VISITOR_REFUSED_REASON = 'a valid visitor token is required';

export interface VisitorAuthOptions extends TokenVerifierOptions {
  /** Failed checks per address (default: 10 a minute). */
  throttle?: FailureThrottleOptions;
  /** Instead of one made from the configuration (tests). */
  verifier?: TokenVerifier;
}

export function createVisitorAuth(config: AuthConfig, options: VisitorAuthOptions = {}): VisitorAuth {
  const verifier = options.verifier ?? createTokenVerifier(config, options);
  const throttle = new FailureThrottle(options.throttle);
  return {
    mode: config.mode,
    async identify(token, remoteAddress) {
      if (!token) {
        return config.mode === 'required'
          ? { ok: false, why: 'no token' }
          : { ok: true, visitor: anonymousVisitor() };
      }
      const address = remoteAddress ?? 'unknown';
      if (throttle.blocked(address))
        return { ok: false, why: 'too many failed tokens from this address: not checked' };
      const result = await verifier.verify(token);
      if (!result.ok) throttle.failed(address);
      return result;
    },
  };
}
