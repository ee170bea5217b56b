/**
 * CORS for the routes that pages allowed to open the socket call from their own origin
 * (image uploads, the AG-UI endpoint): the socket's Origin list decides, so one list says
 * which sites may use the chat, whatever they call.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { isOriginAllowed } from './origin.js';

/**
 * Whether the request may go on: no Origin (not a cross-origin browser request), or one
 * allowed, which gets its CORS headers (`expose`: response headers its script may read).
 */
export function corsFor(
  request: FastifyRequest,
  reply: FastifyReply,
  allowedOrigins: readonly string[],
  expose?: string,
): boolean {
  const { origin, host } = request.headers;
  if (!isOriginAllowed(origin, host, allowedOrigins)) return false;
  if (origin !== undefined) {
    void reply.headers({
      'access-control-allow-origin': origin,
      vary: 'origin',
      ...(expose ? { 'access-control-expose-headers': expose } : {}),
    });
  }
  return true;
}

export interface PreflightOptions {
  method: string;
  /** The request headers the route's callers send. */
  headers: string;
  hooks: onRequestHookHandler[];
  allowedOrigins: readonly string[];
  expose?: string;
}

/** OPTIONS on `path`: `Allow`, and for an allowed Origin its preflight, kept two hours. */
export function answerPreflight(app: FastifyInstance, path: string, options: PreflightOptions): void {
  const { method, headers, hooks, allowedOrigins, expose } = options;
  app.options(path, { onRequest: hooks }, async (request, reply) => {
    void reply.header('allow', `${method}, OPTIONS`);
    if (corsFor(request, reply, allowedOrigins, expose)) {
      void reply.headers({
        'access-control-allow-methods': method,
        'access-control-allow-headers': headers,
        'access-control-max-age': '7200',
      });
    }
    return reply.code(204).send();
  });
}
