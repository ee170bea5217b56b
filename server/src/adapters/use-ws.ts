/**
 * The protocol on a plain `ws` server, for an app without Fastify: it answers WebSocket
 * upgrades on one path of a node:http (or https) server, after the same Host and Origin
 * checks as the plugin, and hands each socket to the core (chat-server.ts). It serves
 * only the socket: the widget's file and `/origin-check` are the plugin's.
 *
 *   const chat = attachAalisChat(httpServer, { provider, model, allowedOrigins });
 *   // at shutdown: await chat.close();
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { createChatServer, type ChatServer, type ChatServerLogger } from '../transport/chat-server.js';
import { createChatServices, type ChatServices, type ChatServicesOptions } from '../compose/chat-services.js';
import {
  DEFAULT_MAX_FRAME_BYTES,
  connectionOptionsOf,
  ipSideOf,
  type ChatEndpointOptions,
} from '../transport/endpoint-options.js';
import { HOST_REFUSED_TEXT, createHostCheck } from '../transport/host-guard.js';
import { IP_REFUSED_TEXT, retryAfterSeconds } from '../transport/ip-limits.js';
import { isOriginAllowed } from '../transport/origin.js';
import { refuseUpgrade } from '../transport/refuse-upgrade.js';
import { BASE_SECURITY_HEADERS } from '../transport/security-headers.js';
import { forwardSocketEvents, handleSocketError } from '../transport/ws-socket.js';

export interface AttachAalisChatOptions extends ChatServicesOptions, ChatEndpointOptions {
  /** The path of the socket (default `/ws`, where the widget looks for it). */
  path?: string;
  /** pino, console, or alike (default: warnings and errors on the console). */
  logger?: ChatServerLogger;
}

export interface AttachedAalisChat extends ChatServices {
  chat: ChatServer;
  /** The ws server the sockets belong to; it emits 'connection' for each one. */
  wss: WebSocketServer;
  /**
   * Graceful: no new socket, running turns are told and store their answer, then every
   * socket closes with 1001, then MCP servers' sessions end (their processes stopped).
   * The HTTP server and the store are yours to close after.
   */
  close(): Promise<void>;
}

const warningsToConsole: ChatServerLogger = {
  info: () => {},
  warn: (object, message) => console.warn(message, object),
  error: (object, message) => console.error(message, object),
};

export function attachAalisChat(server: Server, options: AttachAalisChatOptions): AttachedAalisChat {
  const logger = options.logger ?? warningsToConsole;
  const services = createChatServices(options, logger);
  // The client IP of each request, and the per-IP limits when the host set them.
  const ipSide = ipSideOf(options);
  const chat = createChatServer({
    hub: services.hub,
    connection: connectionOptionsOf(options, ipSide),
    logger,
    onError: options.onError,
    heartbeatMs: options.heartbeatMs,
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
  });
  const path = options.path ?? '/ws';
  const hostServed = createHostCheck(options.publicHosts ?? []);
  const allowedOrigins = options.allowedOrigins ?? [];

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (request.url?.split('?')[0] !== path) {
      // Other paths may be another listener's; with none, the client would hang.
      if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, 404, '', 'text/plain');
      return;
    }
    const { host, origin } = request.headers;
    if (!hostServed(host)) {
      logger.info({ host: host?.slice(0, 100) ?? null }, 'request refused: host not served');
      return refuseUpgrade(socket, 403, HOST_REFUSED_TEXT, 'text/plain; charset=utf-8');
    }
    // Same-origin compares with the Host, which the check above has made one of ours.
    if (!isOriginAllowed(origin, host, allowedOrigins)) {
      logger.info({ origin }, 'websocket refused: origin not allowed');
      const body = JSON.stringify({ error: 'origin not allowed' });
      return refuseUpgrade(socket, 403, body, 'application/json; charset=utf-8');
    }
    // Once per upgrade: the socket's peer, or X-Forwarded-For from a trusted proxy.
    const remoteAddress = ipSide.clientIpOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
    const { limits } = ipSide;
    if (limits && remoteAddress !== undefined) {
      const admitted = limits.admit(remoteAddress);
      if (!admitted.ok) {
        logger.info({ ip: remoteAddress, limit: admitted.limit }, 'websocket refused: per-IP limit');
        return refuseTooMany(socket, IP_REFUSED_TEXT[admitted.limit], retryAfterSeconds(admitted.retryInMs));
      }
      // Uncounted when the connection ends, whether the upgrade went through or not.
      socket.once('close', () => limits.release(remoteAddress));
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const handlers = chat.opened(ws, remoteAddress === undefined ? {} : { remoteAddress });
      forwardSocketEvents(ws, handlers);
      ws.on('error', (error) => handleSocketError(error, ws, handlers, logger));
      wss.emit('connection', ws, request);
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    ...services,
    chat,
    wss,
    close: async () => {
      server.off('upgrade', onUpgrade);
      await chat.closeAll();
      chat.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      // Last: no turn is left to call an MCP tool. Their processes are stopped.
      await services.mcp?.close();
    },
  };
}

/** HTTP 429 with `Retry-After`, written to the socket of a refused upgrade (refuse-upgrade.ts has no extra headers). */
function refuseTooMany(socket: Duplex, error: string, retryAfter: number): void {
  socket.on('error', () => socket.destroy());
  const body = JSON.stringify({ error });
  const headers = {
    ...BASE_SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'retry-after': String(retryAfter),
    connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 429 Too Many Requests\r\n${head.join('')}\r\n${body}`);
}
