/**
 * Who may open the socket, decided once for every adapter before its upgrade (PROTOCOL.md
 * section 2): a Host the server answers to (host-guard.ts), an allowed Origin (origin.ts),
 * then the client IP's limits, this instance's and the site's shared rates (ip-limits.ts):
 * last, so that a socket counted there is refused by nothing after. Each refusal is one
 * info line, a `connection:refused` event, and the HTTP answer the adapter writes (the
 * Fastify plugin through its reply, the plain `ws` one straight to the socket).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../util/logger.js';
import type { AdmissionRefusal, ChatEvents } from './chat-events.js';
import type { IpSide } from './endpoint-options.js';
import { HOST_REFUSED_TEXT, createHostCheck } from './host-guard.js';
import { IP_REFUSED_TEXT, retryAfterSeconds, type IpRefusal } from './ip-limits.js';
import { isOriginAllowed } from './origin.js';
import { normalizeAddress } from './client-ip.js';

/** An upgrade request as admission reads it: node:http's `IncomingMessage` has it. */
export interface UpgradeRequest {
  headers: IncomingHttpHeaders;
  socket: { readonly remoteAddress?: string | undefined };
}

export type Admission =
  /** `remoteAddress`: the client's IP (the peer, or what a trusted proxy said). */
  | { ok: true; remoteAddress?: string }
  /** The answer to write instead of the upgrade. */
  | { ok: false; status: number; contentType: string; body: string; headers: Record<string, string> };

export interface AdmissionOptions {
  publicHosts: readonly string[];
  allowedOrigins: readonly string[];
  ipSide: IpSide;
  events: ChatEvents;
  /** Whether the server is draining (chat-server.ts): then every upgrade is refused with 503. */
  draining?: () => boolean;
}

/** How soon a client refused by a draining server may try again, in seconds (`Retry-After`). */
export const DRAINING_RETRY_AFTER_S = 2;

export type Admit = (request: UpgradeRequest, log: Logger) => Promise<Admission>;

const JSON_TYPE = 'application/json; charset=utf-8';

export function createAdmission({
  publicHosts,
  allowedOrigins,
  ipSide,
  events,
  draining = () => false,
}: AdmissionOptions): Admit {
  const hostServed = createHostCheck(publicHosts);
  let proxyWarned = false;
  const refuse = (
    reason: AdmissionRefusal,
    answer: { status: number; contentType: string; body: string; headers?: Record<string, string> },
    more: { remoteAddress?: string; retryInMs?: number } = {},
  ): Admission => {
    events.emit('connection:refused', { reason, status: answer.status, ...more });
    return { ok: false, headers: {}, ...answer };
  };

  return async (request, log) => {
    const { host, origin } = request.headers;
    if (!hostServed(host)) {
      log.info({ host: host?.slice(0, 100) ?? null }, 'request refused: host not served');
      return refuse('host', {
        status: 403,
        contentType: 'text/plain; charset=utf-8',
        body: HOST_REFUSED_TEXT,
      });
    }
    // Same-origin compares with the Host, which the check above has made one of ours.
    if (!isOriginAllowed(origin, host, allowedOrigins)) {
      log.info({ origin }, 'websocket refused: origin not allowed');
      const body = JSON.stringify({ error: 'origin not allowed' });
      return refuse('origin', { status: 403, contentType: JSON_TYPE, body });
    }
    // Before the per-IP limits, which would count a socket that never opens. A 503 lets a
    // load balancer try another instance (nginx: proxy_next_upstream http_503).
    if (draining()) {
      const body = JSON.stringify({ error: 'the server is restarting: reconnect in a moment' });
      const headers = { 'retry-after': String(DRAINING_RETRY_AFTER_S) };
      return refuse('draining', { status: 503, contentType: JSON_TYPE, body, headers });
    }
    // Once per upgrade: the socket's peer, or X-Forwarded-For from a trusted proxy.
    const forwardedFor = request.headers['x-forwarded-for'];
    const ip = ipSide.clientIpOf(request.socket.remoteAddress, forwardedFor);
    if (!proxyWarned && forwardedFor !== undefined && ipSide.limits && ip === peerOf(request)) {
      // Behind a proxy nobody said to trust, every visitor is the proxy's one address,
      // and shares one address's limits and budgets: said once, for the operator.
      proxyWarned = true;
      log.warn(
        { peer: ip },
        'a request came through a proxy (X-Forwarded-For) that AALIS_TRUST_PROXY does not name: every visitor it forwards counts as its one address; set AALIS_TRUST_PROXY to its address',
      );
    }
    if (ip === undefined) return { ok: true };
    const admitted = await admitIp(ipSide, ipSide.keyOf(ip));
    if (!admitted.ok) {
      log.info({ ip, limit: admitted.limit }, 'websocket refused: per-IP limit');
      const body = JSON.stringify({ error: IP_REFUSED_TEXT[admitted.limit] });
      const headers = { 'retry-after': String(retryAfterSeconds(admitted.retryInMs)) };
      return refuse(
        admitted.limit,
        { status: 429, contentType: JSON_TYPE, body, headers },
        { remoteAddress: ip, retryInMs: admitted.retryInMs },
      );
    }
    // The socket holds a place among its address's open ones only once the upgrade
    // completed (chat-server.ts): a plain GET on a keep-alive connection takes none.
    return { ok: true, remoteAddress: ip };
  };
}

const peerOf = (request: UpgradeRequest): string | undefined =>
  request.socket.remoteAddress === undefined ? undefined : normalizeAddress(request.socket.remoteAddress);

/** A socket from `address` (its count key) may open: this instance's limits, then the site's shared rate. */
async function admitIp(side: IpSide, address: string): Promise<{ ok: true } | IpRefusal> {
  const { limits, shared } = side;
  if (!limits) return { ok: true };
  const admitted = limits.admit(address);
  if (!admitted.ok || !shared) return admitted;
  return shared.take('ip_connections_per_minute', address, limits.limits.connectionsPerMinute);
}
