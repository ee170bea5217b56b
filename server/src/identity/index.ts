/** Signed visitor identity: tokens the site's backend signs, checked with `jose`. */
export { anonymousVisitor, signedVisitor, type Visitor } from './visitor.js';
export { AUTH_MODES, type AuthConfig, type AuthMode, type AuthSettings } from './auth-config.js';
export {
  CLOCK_TOLERANCE_S,
  MAX_TOKEN_LIFETIME_S,
  createTokenVerifier,
  type TokenVerifier,
  type TokenVerifierOptions,
  type VerifyResult,
} from './token-verifier.js';
export {
  ANONYMOUS_KEY_FILE,
  createAnonymousKeys,
  type AnonymousKeySource,
  type AnonymousKeys,
} from './anonymous-key.js';
export { FailureThrottle, type FailureThrottleOptions } from './failure-throttle.js';
export {
  VISITOR_REFUSED_REASON,
  createVisitorAuth,
  type IdentifyResult,
  type VisitorAuth,
  type VisitorAuthOptions,
} from './visitor-auth.js';
