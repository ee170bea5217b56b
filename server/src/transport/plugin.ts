/**
 * The Aalis chat server as a Fastify plugin, for a host to register in its own app:
 * `GET /ws` (the protocol), `GET /healthz` (public: `{ ok: true }`), `GET /healthz/details`
 * (provider and running turns, behind the metrics guard), `GET /aalis-chat.js` (the
 * widget), and `GET /origin-check` (whether the calling page's origin may open the
 * socket). Each answers OPTIONS too. Every one of them refuses a `Host` the server does
 * not answer to, and carries the security headers (host-guard.ts, security-headers.ts).
 *
 *   await app.register(aalisChat, { provider, model, store, allowedOrigins });
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import { CloseCode } from '@aalis/protocol';
import { Agent } from '../agent/agent.js';
import { reportingErrors, type ErrorListener } from '../log-error.js';
import { MemoryHistoryStore } from '../history/memory-store.js';
import type { HistoryStore } from '../history/store.js';
import type { ChatProvider } from '../providers/types.js';
import { SessionHub, type SessionHubOptions } from '../sessions/session-hub.js';
import { builtinTools } from '../tools/builtin/index.js';
import { ToolRegistry, type ToolDefinition } from '../tools/define-tool.js';
import { ClientConnection, defaultConnectionOptions, type ConnectionOptions } from './client-connection.js';
import { createHostCheck, hostGuardHook } from './host-guard.js';
import { metricsGuardHook } from './metrics-guard.js';
import { isOriginAllowed } from './origin.js';
import {
  READ_METHODS,
  setBaseSecurityHeaders,
  setPreflightHeaders,
  setPublicResourceHeaders,
} from './security-headers.js';
import { refusalCloseCode } from './ws-refusals.js';
import { WidgetFile, chooseEncoding, defaultWidgetFile } from './widget-file.js';

export interface AalisChatOptions {
  provider: ChatProvider;
  model: string;
  /** The tools the model may call; the built-in ones by default. */
  tools?: Array<ToolDefinition<never>>;
  systemPrompt?: string;
  /** Model rounds per turn (default 8). */
  maxRounds?: number;
  /** Silence of the model before visitors are told it is waited for (default 4 s). */
  waitingNoticeMs?: number;
  /** Longest tool result kept, as text (default 100,000 characters); a longer one is cut. */
  maxToolResultChars?: number;
  /**
   * Hears every error a visitor was told only by its id (a provider's failure, a tool's
   * exception, a store that failed), with the error itself: for your own error tracker.
   */
  onError?: ErrorListener;
  /** Where history is kept; in memory by default (lost on restart). */
  store?: HistoryStore;
  /** Exact origins allowed to open the socket besides the server's own; `*` for any. */
  allowedOrigins?: string[];
  /** When set, clients must send it in `hello`. */
  token?: string;
  /**
   * Host names the server is published under (`chat.example.com`, or `name:port` for one
   * port), besides loopback names, which are always served; `*` serves any Host (for a
   * proxy in front that checks it). Any other Host gets 403 (DNS rebinding).
   */
  publicHosts?: string[];
  /** Bearer token for `/healthz/details` from other machines; loopback needs none. */
  metricsToken?: string;
  /** Largest frame a client may send, in bytes (default 64 KiB). */
  maxFrameBytes?: number;
  /** Ping interval; a socket that missed the last pong is terminated (default 30 s). */
  heartbeatMs?: number;
  /** The widget's single-file build; found in @aalis/widget by default. */
  widgetFile?: string;
  connection?: Partial<ConnectionOptions>;
  sessions?: Partial<Omit<SessionHubOptions, 'agent' | 'store' | 'logger'>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    aalis: { hub: SessionHub; agent: Agent; store: HistoryStore; widget: WidgetFile };
  }
}

interface TrackedSocket {
  connection: ClientConnection;
  alive: boolean;
  /** The close code ws sent when it refused a frame; the socket itself reports 1006. */
  refusedWith?: number;
}

/** Public health: `{ ok: true }` under any Host. */
export const HEALTH_PATH = '/healthz';

const aalisChatPlugin: FastifyPluginAsync<AalisChatOptions> = async (app: FastifyInstance, options) => {
  const store = options.store ?? new MemoryHistoryStore();
  const recovered = store.recoverInterruptedTurns();
  if (recovered)
    app.log.warn({ turns: recovered }, 'turns interrupted by the last shutdown were marked failed');

  const agent = new Agent({
    provider: options.provider,
    model: options.model,
    tools: new ToolRegistry(options.tools ?? builtinTools()),
    ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.maxRounds ? { maxRounds: options.maxRounds } : {}),
    ...(options.waitingNoticeMs ? { waitingNoticeMs: options.waitingNoticeMs } : {}),
    ...(options.maxToolResultChars ? { maxToolResultChars: options.maxToolResultChars } : {}),
    logger: reportingErrors(app.log, options.onError),
  });
  const hub = new SessionHub({
    agent,
    store,
    logger: reportingErrors(app.log, options.onError),
    ...options.sessions,
  });
  const widget = new WidgetFile(options.widgetFile ?? defaultWidgetFile());
  app.decorate('aalis', { hub, agent, store, widget });

  const connectionOptions: ConnectionOptions = {
    ...defaultConnectionOptions,
    ...options.connection,
    token: options.token || undefined,
  };
  const allowedOrigins = options.allowedOrigins ?? [];
  const sockets = new Map<WebSocket, TrackedSocket>();

  await app.register(websocket, {
    options: { maxPayload: options.maxFrameBytes ?? 64 * 1024 },
    // ws reports the frames it refuses (too large, not UTF-8, malformed) as socket errors,
    // with a stack. Anyone can send those: they end in the connection's one closing line,
    // with the code ws closed it with, and only a failure of our own handler is an error.
    errorHandler: (error, socket, request) => {
      socket.terminate();
      const refusedWith = refusalCloseCode(error);
      if (refusedWith === undefined) return request.log.error({ err: error }, 'websocket handler failed');
      const tracked = sockets.get(socket);
      if (tracked) tracked.refusedWith = refusedWith;
      // A tracked connection says it in its closing line; the detail is for debugging.
      const level = tracked ? 'debug' : 'info';
      request.log[level]({ code: refusedWith, reason: error.message }, 'websocket frame refused');
    },
    // Shutdown: tell running turns, let them store their answer, then close with 1001.
    preClose: async function closeGracefully() {
      await hub.shutdown();
      for (const socket of sockets.keys()) socket.close(CloseCode.GoingAway, 'server restarting: reconnect');
      await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
    },
  });

  const heartbeat = setInterval(() => {
    for (const [socket, tracked] of sockets) {
      if (!tracked.alive) {
        socket.terminate();
        continue;
      }
      tracked.alive = false;
      socket.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();
  app.addHook('onClose', async () => clearInterval(heartbeat));

  // Every route: the headers first, so that refusals carry them too, then the Host.
  const withHeaders = async (_request: FastifyRequest, reply: FastifyReply) => setBaseSecurityHeaders(reply);
  const guarded = [withHeaders, hostGuardHook(createHostCheck(options.publicHosts ?? []))];
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

  app.get('/ws', { websocket: true, onRequest: [...guarded, checkOrigin] }, (socket, request) => {
    const log = request.log;
    const connection = new ClientConnection(
      socket,
      hub,
      connectionOptions,
      reportingErrors(log, options.onError),
    );
    const tracked: TrackedSocket = { connection, alive: true };
    sockets.set(socket, tracked);
    // Attached before anything is awaited, so no early frame is lost.
    socket.on('message', (data, isBinary) => connection.receive(data as Buffer, isBinary));
    socket.on('pong', () => (tracked.alive = true));
    socket.on('close', (code) => {
      sockets.delete(socket);
      connection.closed(tracked.refusedWith ?? code);
    });
    // Socket errors are handled (and logged once) by the errorHandler registered above.
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

  // A refused upgrade reaches a browser as a bare close, indistinguishable from a network
  // failure; this lets the widget tell its user why instead of retrying forever.
  app.get('/origin-check', { onRequest: guarded }, async (request, reply) => {
    setPublicResourceHeaders(reply);
    void reply.header('cache-control', 'no-store');
    return { allowed: isOriginAllowed(request.headers.origin, request.headers.host, allowedOrigins) };
  });
  answerOptions('/origin-check', READ_METHODS, true);

  app.get('/aalis-chat.js', { onRequest: guarded }, async (request, reply) => {
    const asset = await widget.load();
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
  answerOptions('/aalis-chat.js', READ_METHODS, true);
};

export const aalisChat = fp(aalisChatPlugin, { name: '@aalis/server', fastify: '5.x' });
export default aalisChat;
