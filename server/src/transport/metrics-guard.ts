/**
 * Who may read the server's internals (`/healthz/details` now, `/metrics` later): a
 * request with `Authorization: Bearer <metrics token>`, or one made on this machine.
 *
 * "On this machine" is the socket's peer address, never `X-Forwarded-For` (anyone can
 * write that). A reverse proxy on the same machine connects from loopback too, for every
 * visitor: a loopback request that carries a proxy's forwarding header was relayed for
 * someone else, and is treated as coming from outside.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret } from './same-secret.js';

export type MetricsAccess =
  { allowed: true } | { allowed: false; status: 401 | 403; message: string; challenge?: string };

const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a socket listening on `::`). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

export function createMetricsGuard(token: string | undefined): (request: FastifyRequest) => MetricsAccess {
  const expected = token || undefined;
  return (request) => {
    const given = bearerToken(request.headers.authorization);
    if (expected !== undefined && given !== undefined && sameSecret(given, expected))
      return { allowed: true };
    const relayed = PROXY_HEADERS.some((name) => request.headers[name] !== undefined);
    if (!relayed && isLoopbackAddress(request.socket.remoteAddress)) return { allowed: true };
    if (expected === undefined)
      return {
        allowed: false,
        status: 403,
        message: 'only served on this machine; set AALIS_METRICS_TOKEN to read it from elsewhere',
      };
    return {
      allowed: false,
      status: 401,
      message: 'send Authorization: Bearer <AALIS_METRICS_TOKEN>',
      challenge: 'Bearer realm="aalis-metrics"',
    };
  };
}

/** A route hook that lets only what the guard allows through, and answers the rest. */
export function metricsGuardHook(token: string | undefined) {
  const guard = createMetricsGuard(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const access = guard(request);
    if (access.allowed) return;
    if (access.challenge) void reply.header('www-authenticate', access.challenge);
    void reply.header('cache-control', 'no-store');
    await reply.code(access.status).send({ error: access.message });
  };
}
