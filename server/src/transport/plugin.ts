/**
 * The Aalis chat server as a Fastify plugin, for a host to register in its own app:
 * `GET /ws` (the protocol), `GET /healthz`, `GET /aalis-chat.js` (the widget), and
 * `GET /origin-check` (whether the calling page's origin may open the socket).
 *
 *   await app.register(aalisChat, { provider, model, store, allowedOrigins });
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import { CloseCode } from '@aalis/protocol';
import { Agent } from '../agent/agent.js';
import { MemoryHistoryStore } from '../history/memory-store.js';
import type { HistoryStore } from '../history/store.js';
import type { ChatProvider } from '../providers/types.js';
import { SessionHub, type SessionHubOptions } from '../sessions/session-hub.js';
import { builtinTools } from '../tools/builtin/index.js';
import { ToolRegistry, type ToolDefinition } from '../tools/define-tool.js';
import { ClientConnection, defaultConnectionOptions, type ConnectionOptions } from './client-connection.js';
import { isOriginAllowed } from './origin.js';
import { WidgetFile, defaultWidgetFile } from './widget-file.js';

export interface AalisChatOptions {
  provider: ChatProvider;
  model: string;
  /** The tools the model may call; the built-in ones by default. */
  tools?: Array<ToolDefinition<never>>;
  systemPrompt?: string;
  /** Model rounds per turn (default 8). */
  maxRounds?: number;
  /** Where history is kept; in memory by default (lost on restart). */
  store?: HistoryStore;
  /** Exact origins allowed to open the socket besides the server's own; `*` for any. */
  allowedOrigins?: string[];
  /** When set, clients must send it in `hello`. */
  token?: string;
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
    aalis: { hub: SessionHub; agent: Agent; store: HistoryStore };
  }
}

interface TrackedSocket {
  connection: ClientConnection;
  alive: boolean;
}

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
  });
  const hub = new SessionHub({ agent, store, logger: app.log, ...options.sessions });
  app.decorate('aalis', { hub, agent, store });

  const connectionOptions: ConnectionOptions = {
    ...defaultConnectionOptions,
    ...options.connection,
    token: options.token || undefined,
  };
  const allowedOrigins = options.allowedOrigins ?? [];
  const sockets = new Map<WebSocket, TrackedSocket>();

  await app.register(websocket, {
    options: { maxPayload: options.maxFrameBytes ?? 64 * 1024 },
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

  const checkOrigin = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isOriginAllowed(request.headers.origin, request.headers.host, allowedOrigins)) {
      request.log.info({ origin: request.headers.origin }, 'websocket refused: origin not allowed');
      await reply.code(403).send({ error: 'origin not allowed' });
    }
  };

  app.get('/ws', { websocket: true, onRequest: checkOrigin }, (socket, request) => {
    const log = request.log;
    const connection = new ClientConnection(socket, hub, connectionOptions, log);
    const tracked: TrackedSocket = { connection, alive: true };
    sockets.set(socket, tracked);
    // Attached before anything is awaited, so no early frame is lost.
    socket.on('message', (data, isBinary) => connection.receive(data as Buffer, isBinary));
    socket.on('pong', () => (tracked.alive = true));
    socket.on('close', (code) => {
      sockets.delete(socket);
      connection.closed(code);
    });
    socket.on('error', (error) => log.info({ err: error }, 'websocket error'));
  });

  app.get('/healthz', async () => ({
    ok: true,
    provider: options.provider.name,
    runningTurns: hub.runningTurns,
  }));

  // A refused upgrade reaches a browser as a bare close, indistinguishable from a network
  // failure; this lets the widget tell its user why instead of retrying forever.
  app.get('/origin-check', async (request, reply) => {
    void reply.header('access-control-allow-origin', '*').header('cache-control', 'no-store');
    return { allowed: isOriginAllowed(request.headers.origin, request.headers.host, allowedOrigins) };
  });

  const widget = new WidgetFile(options.widgetFile ?? defaultWidgetFile());
  app.get('/aalis-chat.js', async (request, reply) => {
    const asset = await widget.load();
    if (!asset) {
      return reply
        .code(404)
        .type('text/plain')
        .send('The widget is not built: run `npm run build -w @aalis/widget` (npm start does it).');
    }
    // A module script from another origin is blocked without CORS.
    void reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300');
    void reply.header('etag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(asset.body);
  });
};

export const aalisChat = fp(aalisChatPlugin, { name: '@aalis/server', fastify: '5.x' });
export default aalisChat;
