/**
 * Who an AG-UI request is from, by the same rules as a `hello` on the socket
 * (visitor-token.ts): with visitor tokens checked, `Authorization: Bearer <visitor
 * token>` names the visitor (none is an anonymous visitor, or a refusal when tokens are
 * required); otherwise a configured shared token (AALIS_TOKEN) must be the bearer, and the
 * visitor is the anonymous one the `X-Aalis-Anonymous-Key` header names (a new one, whose
 * key the answer carries in the same header, when it names none).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Visitor } from '../../identity/visitor.js';
import { VISITOR_REFUSED_REASON } from '../../identity/visitor-auth.js';
import type { Logger } from '../../util/logger.js';
import type { ConnectionOptions } from '../client-connection.js';
import { tokenRule } from '../visitor-token.js';

/** The header an anonymous visitor's key travels in, both ways. */
export const ANONYMOUS_KEY_HEADER = 'x-aalis-anonymous-key';

export type AgUiIdentity =
  | { ok: true; visitor?: Visitor }
  | { ok: false; status: 401; message: string }
  /** The check itself failed (a JWKS that cannot be fetched): try again later. */
  | { ok: false; status: 503; message: string };

export async function identifyAgUi(
  headers: IncomingHttpHeaders,
  options: Pick<ConnectionOptions, 'auth' | 'token'>,
  remoteAddress: string | undefined,
  log: Logger,
): Promise<AgUiIdentity> {
  const bearer = /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
  const header = headers[ANONYMOUS_KEY_HEADER];
  const anonymousKey = typeof header === 'string' && header.length <= 512 ? header : undefined;
  const rule = tokenRule(options, bearer);
  if (!rule.ok) return { ok: false, status: 401, message: 'wrong or missing token' };
  if (!rule.auth) return { ok: true };
  try {
    const result = await rule.auth.identify(rule.visitorToken, remoteAddress, anonymousKey);
    if (result.ok) return { ok: true, visitor: result.visitor };
    // Which check failed is for the operator: the client learns nothing from it.
    log.info({ remoteAddress: remoteAddress ?? null, why: result.why }, 'ag-ui: visitor token refused');
    return { ok: false, status: 401, message: VISITOR_REFUSED_REASON };
  } catch (error) {
    log.error({ err: error }, 'ag-ui: the visitor check failed');
    return { ok: false, status: 503, message: 'the server cannot check visitors now: try again in a moment' };
  }
}
