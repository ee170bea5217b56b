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

/** An upgrade request as admission reads it: node:http's `IncomingMessage` has it. */
export interface UpgradeRequest {
  headers: IncomingHttpHeaders;
  socket: {
    readonly remoteAddress?: string | undefined;
    readonly destroyed: boolean;
    once(event: 'close', listener: () => void): unknown;
  };
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
}

export type Admit = (request: UpgradeRequest, log: Logger) => Promise<Admission>;

const JSON_TYPE = 'application/json; charset=utf-8';

export function createAdmission({ publicHosts, allowedOrigins, ipSide, events }: AdmissionOptions): Admit {
  const hostServed = createHostCheck(publicHosts);
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
    // Once per upgrade: the socket's peer, or X-Forwarded-For from a trusted proxy.
    const ip = ipSide.clientIpOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
    if (ip === undefined) return { ok: true };
    const admitted = await admitIp(ipSide, ip);
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
    const { limits } = ipSide;
    if (limits) {
      // Uncounted when the TCP connection ends, whether the upgrade goes through or not
      // (or at once, when the client left while the shared rate was asked).
      const release = () => limits.release(ip);
      if (request.socket.destroyed) release();
      else request.socket.once('close', release);
    }
    return { ok: true, remoteAddress: ip };
  };
}

/** A socket from `ip` may open: this instance's limits, then the shared rate (undone here when that refuses). */
async function admitIp(side: IpSide, ip: string): Promise<{ ok: true } | IpRefusal> {
  const { limits, shared } = side;
  if (!limits) return { ok: true };
  const admitted = limits.admit(ip);
  if (!admitted.ok || !shared) return admitted;
  const rate = await shared.take('ip_connections_per_minute', ip, limits.limits.connectionsPerMinute);
  if (!rate.ok) limits.release(ip);
  return rate;
}
