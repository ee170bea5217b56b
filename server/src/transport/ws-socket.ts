/**
 * A `ws` WebSocket wired to the core's handlers: what the two adapters built on ws (the
 * Fastify plugin and the plain one) do alike with each socket.
 */
import type { WebSocket } from 'ws';
import type { Logger } from '../util/logger.js';
import type { ChatServer, SocketHandlers } from './chat-server.js';
import { refusalCloseCode } from './ws-refusals.js';

/**
 * Hands an open socket to the core and forwards its frames, pongs and close. Call it as
 * soon as the socket is open, before anything is awaited, or early frames are lost.
 * Its 'error' events are the adapter's to route to handleSocketError.
 */
export function acceptWebSocket(
  chat: ChatServer,
  socket: WebSocket,
  extra: { logger?: Logger; remoteAddress?: string | undefined },
): SocketHandlers {
  const { logger, remoteAddress } = extra;
  const handlers = chat.opened(socket, {
    ...(logger ? { logger } : {}),
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
  socket.on('message', (data, isBinary) => handlers.message(data, isBinary));
  socket.on('pong', () => handlers.pong());
  socket.on('close', (code) => handlers.closed(code));
  return handlers;
}

/**
 * An 'error' on a socket. ws reports the frames it refuses (too large, not UTF-8,
 * malformed) this way, with a stack. Anyone can send those: they end in the connection's
 * one closing line, with the code ws closed it with, and only a failure of our own
 * handler is an error. `handlers` is absent when the socket has no connection (yet).
 */
export function handleSocketError(
  error: Error,
  socket: WebSocket,
  handlers: SocketHandlers | undefined,
  log: Logger,
): void {
  socket.terminate();
  const code = refusalCloseCode(error);
  if (code === undefined) return log.error({ err: error }, 'websocket handler failed');
  if (handlers) handlers.refused(code, error.message);
  else log.info({ code, reason: error.message }, 'websocket frame refused');
}
