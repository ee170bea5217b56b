/**
 * The Aalis chat server as a Fastify plugin, for a host to register in its own app:
 * `GET /ws` (the protocol), `GET /healthz` (public: `{ ok: true }`), `GET /healthz/details`
 * (provider and running turns) and `GET /metrics` (Prometheus), both behind the metrics
 * guard, `GET /aalis-chat.js` (the widget), and `GET /origin-check` (whether the calling
 * page's origin may open the socket). Each answers OPTIONS too. Every one of them refuses a `Host` the server does
 * not answer to, and carries the security headers (host-guard.ts, security-headers.ts).
 * The sockets behind `/ws` are the transport core's (chat-server.ts); this is the
 * Fastify side of it: routes, hooks, and the wiring of @fastify/websocket.
 *
 *   await app.register(aalisChat, { provider, model, store, allowedOrigins });
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import type { Agent } from '../agent/agent.js';
import type { HistoryStore } from '../history/store.js';
import type { SessionHub } from '../sessions/session-hub.js';
import { createChatServer, type SocketHandlers } from '../transport/chat-server.js';
import { createChatServices, type ChatServicesOptions } from '../compose/chat-services.js';
import {
  DEFAULT_MAX_FRAME_BYTES,
  connectionOptionsOf,
  ipSideOf,
  admitIp,
  type ChatEndpointOptions,
} from '../transport/endpoint-options.js';
import { hostGuardOnce, sharedHostCheck } from '../transport/host-guard-once.js';
import { metricsGuardHook } from '../transport/metrics-guard.js';
import { IP_REFUSED_TEXT, retryAfterSeconds } from '../transport/ip-limits.js';
import { isOriginAllowed } from '../transport/origin.js';
import {
  READ_METHODS,
  setBaseSecurityHeaders,
  setPreflightHeaders,
  setPublicResourceHeaders,
} from '../transport/security-headers.js';
import { WIDGET_PARTS, WidgetFile, chooseEncoding, defaultWidgetFile } from '../transport/widget-file.js';
import { forwardSocketEvents, handleSocketError } from '../transport/ws-socket.js';
import { imageSetupOf, type ImageOptions } from '../images/attachments.js';
import { registerImageRoutes } from '../transport/image-routes.js';
import { ORPHAN_IMAGE_MS } from '../images/image-settings.js';

export interface AalisChatOptions extends ChatServicesOptions, ChatEndpointOptions {
  /**
   * Images visitors may attach (`POST /images`, `GET /images/<id>`): on when the model
   * reads images (`vision`, by default the provider's), with its limits; false for none.
   */
  images?: ImageOptions | false;
  /** Bearer token for `/healthz/details` and `/metrics` from other machines; loopback needs none. */
  metricsToken?: string;
  /** The widget's single-file build; found in @aalis/widget by default. */
  widgetFile?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    aalis: { hub: SessionHub; agent: Agent; store: HistoryStore; widget: WidgetFile };
  }
}

/** Public health: `{ ok: true }` under any Host. */
export const HEALTH_PATH = '/healthz';
/** Prometheus metrics, for the operator (metrics guard). */
export const METRICS_PATH = '/metrics';

const aalisChatPlugin: FastifyPluginAsync<AalisChatOptions> = async (app: FastifyInstance, options) => {
  const images = imageSetupOf(options.images, options.provider.name, {
    secret: options.auth?.secret,
    dataDir: options.auth?.dataDir,
  });
  const { store, agent, hub, mcp, metrics, recovered } = createChatServices(
    images ? { ...options, sessions: { ...options.sessions, images } } : options,
    app.log,
  );
  await recovered;
  const widget = new WidgetFile(options.widgetFile ?? defaultWidgetFile());
  app.decorate('aalis', { hub, agent, store, widget });

  // The client IP of each request, and the per-IP limits when the host set them.
  const ipSide = ipSideOf(options);
  // Observed for metrics: connections open, error frames sent, progress frames collapsed.
  const chat = metrics.observeChatServer(
    createChatServer({
      hub,
      connection: metrics.countingCollapses(connectionOptionsOf(options, ipSide)),
      logger: app.log,
      onError: options.onError,
      heartbeatMs: options.heartbeatMs,
    }),
  );
  const allowedOrigins = options.allowedOrigins ?? [];
  // @fastify/websocket has one error handler for all sockets: it finds each one's here.
  const handlersOf = new WeakMap<WebSocket, SocketHandlers>();

  await app.register(websocket, {
    options: { maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES },
    errorHandler: (error, socket, request) =>
      handleSocketError(error, socket, handlersOf.get(socket), request.log),
    // Shutdown: tell running turns, let them store their answer, then close with 1001.
    preClose: async function closeGracefully() {
      await chat.closeAll();
      await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
    },
  });
  // Uploads no question ever named go after a day (checked hourly, and at start).
  const orphans = images && sweepOrphanImages(store, app.log);
  app.addHook('onClose', async () => {
    if (orphans) clearInterval(orphans);
    chat.dispose();
    // After the sockets (preClose): no turn is left to call an MCP tool.
    await mcp?.close();
  });

  // Every route: the headers first, so that refusals carry them too, then the Host.
  const withHeaders = async (_request: FastifyRequest, reply: FastifyReply) => setBaseSecurityHeaders(reply);
  const guarded = [withHeaders, hostGuardOnce(sharedHostCheck(options.publicHosts ?? []))];
  const answerOptions = (path: string, allow: string, preflight = false, hooks = guarded) =>
    app.options(path, { onRequest: hooks }, async (_request, reply) => {
      void reply.header('allow', allow);
      if (preflight) {
        setPublicResourceHeaders(reply);
        setPreflightHeaders(reply);
      }
      return reply.code(204).send();
    });

  // Same-origin here means the Origin's host is the request's Host, which the host guard
  // has already checked: it is one of the server's own names.
  const checkOrigin = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isOriginAllowed(request.headers.origin, request.headers.host, allowedOrigins)) {
      request.log.info({ origin: request.headers.origin }, 'websocket refused: origin not allowed');
      await reply.code(403).send({ error: 'origin not allowed' });
    }
  };

  // The client IP, found once per upgrade request (the socket's peer, or X-Forwarded-For
  // from a trusted proxy: never Fastify's own trustProxy), then its per-IP limits: last,
  // so that a socket counted here is refused by nothing after. It is uncounted when its
  // TCP socket closes, whether the upgrade went through or not.
  const clientIps = new WeakMap<FastifyRequest, string>();
  const limitIp = async (request: FastifyRequest, reply: FastifyReply) => {
    const ip = ipSide.clientIpOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
    if (ip === undefined) return;
    clientIps.set(request, ip);
    const { limits } = ipSide;
    if (!limits) return;
    const admitted = await admitIp(ipSide, ip);
    if (!admitted.ok) {
      request.log.info({ ip, limit: admitted.limit }, 'websocket refused: per-IP limit');
      await reply
        .code(429)
        .header('retry-after', String(retryAfterSeconds(admitted.retryInMs)))
        .send({ error: IP_REFUSED_TEXT[admitted.limit] });
      return;
    }
    request.socket.once('close', () => limits.release(ip));
  };

  app.get('/ws', { websocket: true, onRequest: [...guarded, checkOrigin, limitIp] }, (socket, request) => {
    const remoteAddress = clientIps.get(request);
    const handlers = chat.opened(socket, {
      logger: request.log,
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
    });
    handlersOf.set(socket, handlers);
    forwardSocketEvents(socket, handlers);
    // Socket errors reach the errorHandler registered above.
  });
  answerOptions('/ws', 'GET, OPTIONS');

  // Public health says only that the server serves; what it runs and how busy it is
  // would help an attacker, and is for the operator (metrics-guard.ts). It answers under
  // any Host: load balancers and container probes ask by IP address, and "ok" tells a
  // rebinding page nothing.
  app.get(HEALTH_PATH, { onRequest: withHeaders }, async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return { ok: true };
  });
  answerOptions(HEALTH_PATH, READ_METHODS, false, [withHeaders]);
  app.get(
    '/healthz/details',
    { onRequest: [...guarded, metricsGuardHook(options.metricsToken)] },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
      return { ok: true, provider: options.provider.name, runningTurns: hub.runningTurns };
    },
  );
  answerOptions('/healthz/details', READ_METHODS);
  // Prometheus metrics (observability/metrics.ts), behind the same guard as the details.
  app.get(
    METRICS_PATH,
    { onRequest: [...guarded, metricsGuardHook(options.metricsToken)] },
    async (_request, reply) => {
      const { contentType, body } = await metrics.expose();
      return reply.header('cache-control', 'no-store').type(contentType).send(body);
    },
  );
  answerOptions(METRICS_PATH, READ_METHODS);

  // A refused upgrade reaches a browser as a bare close, indistinguishable from a network
  // failure; this lets the widget tell its user why instead of retrying forever.
  app.get('/origin-check', { onRequest: guarded }, async (request, reply) => {
    setPublicResourceHeaders(reply);
    void reply.header('cache-control', 'no-store');
    return { allowed: isOriginAllowed(request.headers.origin, request.headers.host, allowedOrigins) };
  });
  answerOptions('/origin-check', READ_METHODS, true);

  if (images) {
    await registerImageRoutes(app, {
      store,
      tickets: images.tickets,
      settings: images.settings,
      allowedOrigins,
      guarded,
      clientIpOf: ipSide.clientIpOf,
    });
  }

  // The widget, and the parts it loads from next to itself (marked), alike.
  for (const [path, file] of [
    ['/aalis-chat.js', widget],
    ...WIDGET_PARTS.map((name) => [`/${name}`, widget.sibling(name)] as const),
  ] as const) {
    app.get(path, { onRequest: guarded }, async (request, reply) => {
      const asset = await file.load();
      if (!asset) {
        return reply
          .code(404)
          .type('text/plain')
          .send('The widget is not built: run `npm run build -w @aalis/widget` (npm start does it).');
      }
      // A module script from another origin is blocked without CORS.
      setPublicResourceHeaders(reply);
      const encoding = chooseEncoding(request.headers['accept-encoding']);
      const etag = encoding === 'identity' ? asset.etag : `${asset.etag.slice(0, -1)}-${encoding}"`;
      // The address is not versioned (pages embed /aalis-chat.js): a short freshness, then
      // a revalidation by ETag that costs a 304, and a stale copy meanwhile rather than a wait.
      void reply
        .header('cache-control', 'public, max-age=300, stale-while-revalidate=86400')
        .header('vary', 'accept-encoding')
        .header('etag', etag);
      if (request.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) return reply.code(304).send();
      if (encoding !== 'identity') void reply.header('content-encoding', encoding);
      const body = encoding === 'identity' ? asset.body : asset[encoding];
      return reply.type('text/javascript; charset=utf-8').send(body);
    });
    answerOptions(path, READ_METHODS, true);
  }
};

/** Deletes the uploads no question named within a day, now and every hour; the timer is returned. */
function sweepOrphanImages(store: HistoryStore, log: FastifyInstance['log']): NodeJS.Timeout {
  const sweep = () =>
    store.dropOrphanImages(Date.now() - ORPHAN_IMAGE_MS).then(
      (dropped) => dropped && log.info({ dropped }, 'images never sent were deleted'),
      (error: unknown) => log.error({ err: error }, 'deleting images never sent failed'),
    );
  void sweep();
  const timer = setInterval(() => void sweep(), 60 * 60 * 1000);
  timer.unref();
  return timer;
}

export const aalisChat = fp(aalisChatPlugin, { name: '@aalis/server', fastify: '5.x' });
export default aalisChat;
