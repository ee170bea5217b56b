/**
 * The plugin's HTTP routes besides the socket (Fastify): `GET /healthz` and `GET
 * /healthz/ready` (public), `GET /healthz/details` and `GET /metrics` behind the metrics
 * guard, `GET /origin-check`, and the widget's file with the parts it loads. Each answers
 * OPTIONS too. Every one of them refuses a `Host` the server does not answer to (the
 * probes excepted), and carries the security headers (host-guard.ts, security-headers.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { hostGuardOnce, sharedHostCheck } from './host-guard-once.js';
import { metricsGuardHook } from './metrics-guard.js';
import { isOriginAllowed } from './origin.js';
import {
  READ_METHODS,
  setBaseSecurityHeaders,
  setPreflightHeaders,
  setPublicResourceHeaders,
} from './security-headers.js';
import { sendScript } from './script-reply.js';
import { WIDGET_PARTS, type WidgetFile } from './widget-file.js';

/** Public health, the liveness check: `{ ok: true }` under any Host. */
export const HEALTH_PATH = '/healthz';
/**
 * Public readiness, for a load balancer: `{ ready: true }`, or 503 `{ ready: false,
 * reason: 'draining' }` from the moment a drain begins, under any Host.
 */
export const READY_PATH = '/healthz/ready';
/** The paths a prober asks by IP address: answered under any Host. */
export const PROBE_PATHS: readonly string[] = [HEALTH_PATH, READY_PATH];

/** Whether the server takes new sockets and turns, and why not. */
export type Readiness = { ready: true } | { ready: false; reason: string };
/** Prometheus metrics, for the operator (metrics guard). */
export const METRICS_PATH = '/metrics';

/** The hooks of every route: the headers first, so that refusals carry them too, then the Host. */
export interface RouteHooks {
  withHeaders: onRequestHookHandler;
  guarded: onRequestHookHandler[];
}

export function routeHooks(publicHosts: readonly string[]): RouteHooks {
  const withHeaders = async (_request: FastifyRequest, reply: FastifyReply) => setBaseSecurityHeaders(reply);
  return { withHeaders, guarded: [withHeaders, hostGuardOnce(sharedHostCheck(publicHosts))] };
}

/** OPTIONS on `path`: 204 with `Allow`, and the preflight headers for a resource other pages load. */
export function answerOptions(
  app: FastifyInstance,
  path: string,
  allow: string,
  hooks: onRequestHookHandler[],
  preflight = false,
): void {
  app.options(path, { onRequest: hooks }, async (_request, reply) => {
    void reply.header('allow', allow);
    if (preflight) {
      setPublicResourceHeaders(reply);
      setPreflightHeaders(reply);
    }
    return reply.code(204).send();
  });
}

export interface StatusRoutesOptions {
  hooks: RouteHooks;
  metricsToken: string | undefined;
  allowedOrigins: readonly string[];
  /** What `/healthz/ready` says. */
  readiness(): Readiness;
  /** What `/healthz/details` says. */
  details(): object;
  /** The Prometheus text exposition (observability/metrics.ts). */
  expose(): Promise<{ contentType: string; body: string }>;
}

export function registerStatusRoutes(app: FastifyInstance, options: StatusRoutesOptions): void {
  const { withHeaders, guarded } = options.hooks;
  const operator = [...guarded, metricsGuardHook(options.metricsToken)];
  // Public health says only that the server serves; what it runs and how busy it is
  // would help an attacker, and is for the operator (metrics-guard.ts). It answers under
  // any Host: load balancers and container probes ask by IP address, and "ok" tells a
  // rebinding page nothing.
  app.get(HEALTH_PATH, { onRequest: withHeaders }, async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return { ok: true };
  });
  answerOptions(app, HEALTH_PATH, READ_METHODS, [withHeaders]);
  // Readiness apart from liveness: a draining server is alive (its turns are finishing)
  // and must not be restarted, only sent no one new.
  app.get(READY_PATH, { onRequest: withHeaders }, async (_request, reply) => {
    const readiness = options.readiness();
    return reply
      .header('cache-control', 'no-store')
      .code(readiness.ready ? 200 : 503)
      .send(readiness);
  });
  answerOptions(app, READY_PATH, READ_METHODS, [withHeaders]);
  app.get('/healthz/details', { onRequest: operator }, async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return options.details();
  });
  answerOptions(app, '/healthz/details', READ_METHODS, guarded);
  app.get(METRICS_PATH, { onRequest: operator }, async (_request, reply) => {
    const { contentType, body } = await options.expose();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
  answerOptions(app, METRICS_PATH, READ_METHODS, guarded);

  // A refused upgrade reaches a browser as a bare close, indistinguishable from a network
  // failure; this lets the widget tell its user why instead of retrying forever.
  app.get('/origin-check', { onRequest: guarded }, async (request, reply) => {
    setPublicResourceHeaders(reply);
    void reply.header('cache-control', 'no-store');
    return { allowed: isOriginAllowed(request.headers.origin, request.headers.host, options.allowedOrigins) };
  });
  answerOptions(app, '/origin-check', READ_METHODS, guarded, true);
}

/** The widget, and the parts it loads from next to itself (marked), alike. */
export function registerWidgetRoutes(app: FastifyInstance, widget: WidgetFile, hooks: RouteHooks): void {
  for (const [path, file] of [
    ['/aalis-chat.js', widget],
    ...WIDGET_PARTS.map((name) => [`/${name}`, widget.sibling(name)] as const),
  ] as const) {
    app.get(path, { onRequest: hooks.guarded }, async (request, reply) => {
      const asset = await file.load();
      if (!asset) {
        return reply
          .code(404)
          .type('text/plain')
          .send('The widget is not built: run `npm run build -w @aalis/widget` (npm start does it).');
      }
      // A module script from another origin is blocked without CORS.
      setPublicResourceHeaders(reply);
      // The address is not versioned (pages embed /aalis-chat.js): a short freshness, then
      // a revalidation by ETag that costs a 304, and a stale copy meanwhile rather than a wait.
      return sendScript(request, reply, asset, 'public, max-age=300, stale-while-revalidate=86400');
    });
    answerOptions(app, path, READ_METHODS, hooks.guarded, true);
  }
}
