/**
 * What the token a client sends is, by the server's configuration: the same rule for a
 * socket's `hello` and an AG-UI request's bearer. With visitor tokens checked, it names
 * the visitor (none: anonymous, or refused when tokens are required). Otherwise it must be
 * the shared token when one is set; the visitor is then the anonymous one its key names,
 * and a token sent to a server with neither is checked as a visitor's (and refused).
 */
import type { VisitorAuth } from '../identity/visitor-auth.js';
import { sameSecret } from './same-secret.js';

export type TokenRule =
  /** The shared token is set and this is not it. */
  | { ok: false }
  /** `auth` names the visitor from `visitorToken` (absent: anonymous). */
  | { ok: true; auth: VisitorAuth; visitorToken: string | undefined }
  /** No visitors: the server knows no one. */
  | { ok: true; auth?: undefined };

export function tokenRule(
  options: { auth?: VisitorAuth | undefined; token?: string | undefined },
  sent: string | undefined,
): TokenRule {
  const { auth, token } = options;
  if (auth?.checksTokens) return { ok: true, auth, visitorToken: sent };
  if (token !== undefined && !(sent !== undefined && sameSecret(sent, token))) return { ok: false };
  if (auth) return { ok: true, auth, visitorToken: token === undefined ? sent : undefined };
  return { ok: true };
}
