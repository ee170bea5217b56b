/**
 * Headers every response of the server carries, and the ones that depend on what is
 * served. Set before the route runs, so refusals (403, 404) carry them too.
 */
import type { FastifyReply } from 'fastify';

/**
 * - `nosniff`: a browser must take the declared type at its word, so a JSON or text
 *   answer that echoes something a visitor typed can never be run as a script or page.
 * - `no-referrer`: nothing the server serves needs to tell anyone where a visitor came
 *   from, and the demo page's links should not tell other sites this server's address.
 *   The checks that matter here read `Origin`, which this policy does not remove from
 *   CORS and WebSocket requests; the stricter policy costs nothing.
 */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function setBaseSecurityHeaders(reply: FastifyReply): void {
  void reply.headers(BASE_SECURITY_HEADERS);
}

/** The methods every plugin route but /ws answers; the preflight lists them too. */
export const READ_METHODS = 'GET, HEAD, OPTIONS';

/**
 * For a resource any page may read (the widget script, /origin-check): CORS for its
 * requests and preflights, and `Cross-Origin-Resource-Policy: cross-origin` so that a
 * page isolated with `Cross-Origin-Embedder-Policy: require-corp` may load it too.
 */
export function setPublicResourceHeaders(reply: FastifyReply): void {
  void reply.headers({
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
  });
}

/** A preflight is answered once a day at most (browsers cap it lower: Chromium at 2 h). */
export const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

export function setPreflightHeaders(reply: FastifyReply): void {
  void reply.headers({
    'access-control-allow-methods': READ_METHODS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  });
}
