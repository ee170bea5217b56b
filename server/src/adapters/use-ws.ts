/**
 * The protocol on a plain `ws` server, for an app without Fastify: it answers WebSocket
 * upgrades on one path of a node:http (or https) server. Admission (Host, Origin, per-IP
 * limits and the shared rates), connections, heartbeats and their events are the transport
 * core's (chat-endpoint.ts), as they are the plugin's; this only carries the upgrades and
 * sockets to it. It serves only the socket: the widget's file and `/origin-check` are the plugin's.
 *
 *   const chat = attachAalisChat(httpServer, { provider, model, allowedOrigins });
 *   // at shutdown: await chat.close();
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { ChatServer } from '../transport/chat-server.js';
import { createChatServices, type ChatServices, type ChatServicesOptions } from '../compose/chat-services.js';
import { createChatEndpoint } from '../transport/chat-endpoint.js';
import type { ChatEndpointOptions } from '../transport/endpoint-options.js';
import { refuseUpgrade } from '../transport/refuse-upgrade.js';
import { acceptWebSocket, handleSocketError } from '../transport/ws-socket.js';
import { warningsToConsole, type Logger } from '../util/logger.js';

export interface AttachAalisChatOptions extends ChatServicesOptions, ChatEndpointOptions {
  /** The path of the socket (default `/ws`, where the widget looks for it). */
  path?: string;
  /** pino, console, or alike (default: warnings and errors on the console). */
  logger?: Logger;
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

export function attachAalisChat(server: Server, options: AttachAalisChatOptions): AttachedAalisChat {
  const logger = options.logger ?? warningsToConsole;
  const services = createChatServices(options, logger);
  const { chat, admit, maxFrameBytes } = createChatEndpoint(services, options, logger);
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes });
  const path = options.path ?? '/ws';

  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node leaves an upgrading socket without an error listener: a reset while admission
    // waits (the shared rates) must not crash the process.
    const dropped = () => socket.destroy();
    socket.on('error', dropped);
    const admission = await admit(request, logger);
    socket.off('error', dropped);
    if (!admission.ok) {
      const { status, body, contentType, headers } = admission;
      return refuseUpgrade(socket, status, body, contentType, headers);
    }
    const { remoteAddress } = admission;
    wss.handleUpgrade(request, socket, head, (ws) => {
      const handlers = acceptWebSocket(chat, ws, { remoteAddress });
      ws.on('error', (error) => handleSocketError(error, ws, handlers, logger));
      wss.emit('connection', ws, request);
    });
  };
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (request.url?.split('?')[0] !== path) {
      // Other paths may be another listener's; with none, the client would hang.
      if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, 404, '', 'text/plain');
      return;
    }
    upgrade(request, socket, head).catch((error: unknown) => {
      logger.error({ err: error }, 'websocket upgrade failed');
      socket.destroy();
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
      // The answers still waiting for the history stay kept for the next start.
      services.answers.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      // Last: no turn is left to call an MCP tool. Their processes are stopped.
      await services.mcp?.close();
    },
  };
}
