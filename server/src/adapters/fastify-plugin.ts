/**
 * The Aalis chat server as a Fastify plugin, for a host to register in its own app: `GET
 * /ws` (the protocol) on @fastify/websocket, and the HTTP routes beside it (health,
 * metrics, `/origin-check`, the widget, images, AG-UI: transport/http-routes.ts,
 * image-routes.ts, ag-ui/ag-ui-routes.ts).
 * Admission, connections and their events are the transport core's (chat-endpoint.ts);
 * this only carries Fastify's requests and sockets to it.
 *
 *   await app.register(aalisChat, { provider, model, store, allowedOrigins });
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import type { TurnAgent } from '../agent/turn-agent.js';
import type { HistoryStore } from '../history/store.js';
import type { SessionHub } from '../sessions/session-hub.js';
import type { ChatEvents } from '../transport/chat-events.js';
import type { ChatServer, SocketHandlers } from '../transport/chat-server.js';
import { backEndName, createChatServices, type ChatServicesOptions } from '../compose/chat-services.js';
import { createChatEndpoint } from '../transport/chat-endpoint.js';
import type { ChatEndpointOptions } from '../transport/endpoint-options.js';
import {
  answerOptions,
  registerStatusRoutes,
  registerWidgetRoutes,
  routeHooks,
} from '../transport/http-routes.js';
import { WidgetFile, defaultWidgetFile } from '../transport/widget-file.js';
import { acceptWebSocket, handleSocketError } from '../transport/ws-socket.js';
import { imageSetupOf, type ImageOptions } from '../images/attachments.js';
import { registerImageRoutes } from '../transport/image-routes.js';
import { registerOwnerConsole } from '../admin/owner-console.js';
import type { ModelPrices } from '../admin/day-stats.js';
import { registerAgUiRoutes } from '../transport/ag-ui/ag-ui-routes.js';
import { registerMcpAppRoutes } from '../transport/mcp-app-routes.js';
import type { McpToolSource } from '../tools/mcp/mcp-tool-source.js';

export interface AalisChatOptions extends ChatServicesOptions, ChatEndpointOptions {
  /**
   * Images visitors may attach (`POST /images`, `GET /images/<id>`): on when the model
   * reads images (`vision`, by default the provider's), with its limits; false for none.
   */
  images?: ImageOptions | false;
  /** Bearer token for `/healthz/details` and `/metrics` from other machines; loopback needs none. */
  metricsToken?: string;
  /**
   * Bearer token of the owner's switch: `POST /admin/pause`, `/admin/resume`, `GET
   * /admin/status` (admin/pause-routes.ts), and the console (`/admin`, admin/). Without it
   * those routes do not exist.
   */
  adminToken?: string;
  /**
   * Conversations idle longer than this many days are erased, checked hourly (admin/);
   * none or 0 keeps them.
   */
  retentionDays?: number;
  /** USD per million tokens by model name (`{ "gpt-4o-mini": { "input": 0.15, "output": 0.6 } }`): the console's cost per day. */
  prices?: ModelPrices;
  /** The widget's single-file build; found in @aalis/widget by default. */
  widgetFile?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * `events`: what the server announces (transport/chat-events.ts), for the host to hear;
     * `chat`: the socket server, whose `drain()` a host calls at SIGTERM before `close()`.
     */
    aalis: {
      hub: SessionHub;
      agent: TurnAgent;
      store: HistoryStore;
      widget: WidgetFile;
      events: ChatEvents;
      chat: ChatServer;
      /** The MCP servers' connections, when any are configured (`mcp.ready`: each connected or failed once). */
      mcp?: McpToolSource;
    };
  }
}

const aalisChatPlugin: FastifyPluginAsync<AalisChatOptions> = async (app: FastifyInstance, options) => {
  const images = imageSetupOf(options.images, backEndName(options), {
    secret: options.auth?.secret,
    dataDir: options.auth?.dataDir,
  });
  const services = createChatServices(
    images ? { ...options, sessions: { ...options.sessions, images } } : options,
    app.log,
  );
  const { store, agent, hub, mcp, metrics, events } = services;
  await services.recovered;
  const widget = new WidgetFile(options.widgetFile ?? defaultWidgetFile());
  const { chat, admit, clientIpOf, addressKeyOf, allowedOrigins, maxFrameBytes, connection, openSockets } =
    createChatEndpoint(services, options, app.log);
  app.decorate('aalis', { hub, agent, store, widget, events, chat, ...(mcp ? { mcp } : {}) });
  // @fastify/websocket has one error handler for all sockets: it finds each one's here.
  const handlersOf = new WeakMap<WebSocket, SocketHandlers>();
  await app.register(websocket, {
    options: { maxPayload: maxFrameBytes },
    errorHandler: (error, socket, request) =>
      handleSocketError(error, socket, handlersOf.get(socket), request.log),
    // Shutdown: tell running turns, let them store their answer, then close with 1001 (a
    // drain, when one ran before, has done it already).
    preClose: async function closeGracefully() {
      await chat.closeAll();
      await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
    },
  });
  app.addHook('onClose', async () => {
    chat.dispose();
    // The answers still waiting for the history stay kept for the next start.
    services.answers.close();
    // After the sockets (preClose): no turn is left to call an MCP tool.
    await mcp?.close();
  });

  // Admission before the upgrade (Host, Origin, per-IP limits), with the client IP it found.
  const hooks = routeHooks(options.publicHosts ?? []);
  const clientIps = new WeakMap<FastifyRequest, string>();
  const admitted = async (request: FastifyRequest, reply: FastifyReply) => {
    const admission = await admit(request.raw, request.log);
    if (!admission.ok) {
      const { status, headers, contentType, body } = admission;
      return reply.code(status).headers(headers).type(contentType).send(body);
    }
    if (admission.remoteAddress !== undefined) clientIps.set(request, admission.remoteAddress);
  };
  app.get('/ws', { websocket: true, onRequest: [hooks.withHeaders, admitted] }, (socket, request) => {
    const remoteAddress = clientIps.get(request);
    handlersOf.set(socket, acceptWebSocket(chat, socket, { logger: request.log, remoteAddress }));
    // Socket errors reach the errorHandler registered above.
  });
  answerOptions(app, '/ws', 'GET, OPTIONS', hooks.guarded);

  registerStatusRoutes(app, {
    hooks,
    metricsToken: options.metricsToken,
    allowedOrigins,
    readiness: () => (chat.draining ? { ready: false, reason: 'draining' } : { ready: true }),
    details: () => ({ ok: true, provider: backEndName(options), runningTurns: hub.runningTurns }),
    expose: () => metrics.expose(),
  });
  if (images) {
    const { tickets, settings } = images;
    await registerImageRoutes(app, {
      store,
      tickets,
      settings,
      allowedOrigins,
      clientIpOf,
      addressKeyOf,
      counters: services.counters,
      guarded: hooks.guarded,
    });
  }
  const stopRetention = registerOwnerConsole(app, {
    adminToken: options.adminToken,
    retentionDays: options.retentionDays,
    store,
    hub,
    budgets: services.budgets,
    pause: services.pause,
    events,
    model: options.model ?? null,
    prices: options.prices,
    addressOf: (request) =>
      clientIpOf(request.raw.socket.remoteAddress, request.headers['x-forwarded-for']) ?? 'unknown',
    guarded: hooks.guarded,
    logger: app.log,
  });
  app.addHook('onClose', async () => stopRetention());
  registerAgUiRoutes(app, { hub, admit, connection, hooks, allowedOrigins, addressKeyOf, openSockets });
  if (services.apps) registerMcpAppRoutes(app, { apps: services.apps, hooks, allowedOrigins });
  registerWidgetRoutes(app, widget, hooks);
};

export const aalisChat = fp(aalisChatPlugin, { name: '@aalis/server', fastify: '5.x' });
export default aalisChat;
