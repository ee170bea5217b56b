/**
 * The protocol server without a transport: it is handed each socket once it is open
 * (after the adapter has done its Host and Origin checks) and answers with the handlers
 * the adapter calls on that socket's events. It owns what is the same whatever carries
 * the sockets: the live connections, the heartbeat that terminates dead ones, the close
 * code of frames the socket library refused, and the drain or graceful close at shutdown. Each
 * connection's protocol rules are ClientConnection's. What happens is announced on
 * `events` (chat-events.ts): connections opened and closed, frames dropped, error frames.
 *
 *   const chat = createChatServer({ hub, logger });
 *   const on = chat.opened(socket);  // then on.message(data, isBinary), on.pong(), on.closed(code)
 */
import { CloseCode } from '@aalis/protocol';
import type { ErrorListener } from '../util/log-error.js';
import type { Logger } from '../util/logger.js';
import type { SessionHub } from '../sessions/session-hub.js';
import { announcingErrors, createChatEvents, hearErrors, type ChatEvents } from './chat-events.js';
import {
  ClientConnection,
  defaultConnectionOptions,
  type ConnectionOptions,
  type SocketLike,
} from './client-connection.js';

/**
 * An open socket as the core needs it. `ping` and `terminate` together put it under the
 * heartbeat; a transport without them keeps its own watch on dead peers.
 */
export interface ChatSocket extends SocketLike {
  ping?(): void;
  /** Drops the connection at once, without a closing handshake (the peer may be gone). */
  terminate?(): void;
}

/** What the adapter calls on a socket's events. None of them throws. */
export interface SocketHandlers {
  /** A frame from the client: text, or the bytes of a text frame. */
  message(data: string | Buffer | ArrayBuffer | Buffer[], isBinary?: boolean): void;
  /** The client answered a ping. */
  pong(): void;
  /**
   * The socket library refused a frame (too large, not UTF-8, malformed) and closed with
   * `code`. The socket then reports an abnormal close (1006); the connection's closing
   * line says this code instead, which tells what happened.
   */
  refused(code: number, detail?: string): void;
  /** The socket closed, for whatever reason. */
  closed(code: number): void;
}

export interface ChatServerOptions {
  hub: SessionHub;
  /** Over the defaults of ClientConnection (hello timeout, rates, backpressure, token). */
  connection?: Partial<ConnectionOptions>;
  /** Each connection's log, unless `opened` is given one of its own. */
  logger: Logger;
  /** Where it announces what happens (the composed services'); a bus of its own by default. */
  events?: ChatEvents;
  /** Hears every error a visitor was told only by its id (`error:reported` on `events`). */
  onError?: ErrorListener;
  /** Ping interval; a socket that missed the last pong is terminated (default 30 s). */
  heartbeatMs?: number;
  /** What a client address is counted under (address-form.ts: an IPv6 address's /64); itself by default. */
  addressKeyOf?: (ip: string) => string;
  /**
   * The per-address count of open sockets (ip-limits.ts): a socket takes its place here,
   * once its upgrade completed, and gives it back when it closes.
   */
  openSockets?: { opened(address: string): void; release(address: string): void };
}

export interface ChatServer {
  /**
   * A socket has opened; attach the handlers before anything is awaited, or frames are lost.
   * `remoteAddress` is the client's (the socket's peer, or what a trusted proxy said): failed
   * visitor tokens are counted by it.
   */
  opened(socket: ChatSocket, extra?: { logger?: Logger; remoteAddress?: string }): SocketHandlers;
  /** What happens, for metrics and the host to hear (chat-events.ts). */
  readonly events: ChatEvents;
  /** Connections open now. */
  readonly connections: number;
  /**
   * A drain (a rolling deploy's SIGTERM): from now on upgrades are refused (`draining`),
   * as are new turns; when other instances serve the sessions, every socket closes at
   * once with 1012 (its tab resumes elsewhere, where the turn goes on streaming), else
   * sockets stay open to see their answers end. Running turns finish for up to the hub's
   * `drainMs`, those left are stopped (`shutting_down`), then the sockets left close with
   * 1001. Resolves then; called again, it returns the same drain.
   */
  drain(): Promise<void>;
  /** Ends a drain at once: the turns still running are stopped now (a second SIGTERM). */
  endDrain(): void;
  /** Whether the server is draining or closing: it takes no new socket nor turn. */
  readonly draining: boolean;
  /**
   * Shutdown without a drain: running turns are told and store their answer, then every
   * socket closes with 1001. During a drain, it ends the drain at once.
   */
  closeAll(): Promise<void>;
  /** Stops the heartbeat; sockets opened from now on are closed at once. */
  dispose(): void;
}

export const DEFAULT_HEARTBEAT_MS = 30_000;

/** The reason of the 1001 at shutdown: the client is to come back, and resumes its session. */
export const RESTART_REASON = 'server restarting: reconnect';

export const DRAINING_REASON = 'server draining: reconnect to another instance';

interface LiveConnection {
  connection: ClientConnection;
  /** Whether it answered the last ping. */
  alive: boolean;
  refusedWith?: number;
}

const ignoring: SocketHandlers = { message() {}, pong() {}, refused() {}, closed() {} };

export function createChatServer(options: ChatServerOptions): ChatServer {
  const connectionOptions: ConnectionOptions = { ...defaultConnectionOptions, ...options.connection };
  const events = options.events ?? createChatEvents(options.logger);
  if (options.onError) hearErrors(events, options.onError, options.logger);
  const live = new Map<ChatSocket, LiveConnection>();
  const keyOf = options.addressKeyOf ?? ((ip: string) => ip);
  let accepting = true;
  /** The one drain or shutdown, once begun. */
  let stopped: Promise<void> | undefined;
  /** Whether tabs go on elsewhere, decided when the drain begins. */
  let elsewhere = false;
  /** How the sockets of this drain close: to another instance, or to this one once it is back. */
  const goAway = (socket: ChatSocket) =>
    elsewhere
      ? socket.close(CloseCode.Draining, DRAINING_REASON)
      : socket.close(CloseCode.GoingAway, RESTART_REASON);

  /**
   * Stops taking sockets and turns; with `reconnectElsewhere`, every socket closes at once
   * (1012). The hub's shutdown drains, then the sockets left close with 1001.
   */
  const stop = (reconnectElsewhere: boolean): Promise<void> =>
    (stopped ??= (async () => {
      accepting = false;
      elsewhere = reconnectElsewhere;
      if (elsewhere) for (const socket of live.keys()) goAway(socket);
      await options.hub.shutdown();
      // After the shutdown, so the frames that end each running turn go out first.
      for (const socket of live.keys()) socket.close(CloseCode.GoingAway, RESTART_REASON);
    })());

  const heartbeat = setInterval(() => {
    for (const [socket, tracked] of live) {
      if (!socket.ping || !socket.terminate) continue;
      if (!tracked.alive) {
        socket.terminate();
        continue;
      }
      tracked.alive = false;
      socket.ping();
    }
  }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  // The heartbeat alone must not keep a process alive that has nothing else to do.
  heartbeat.unref();

  return {
    opened(socket, extra = {}) {
      // A socket that slipped in while the server stops would never be closed.
      if (!accepting) {
        goAway(socket);
        return ignoring;
      }
      const log = extra.logger ?? options.logger;
      const { remoteAddress } = extra;
      const address = remoteAddress === undefined ? undefined : keyOf(remoteAddress);
      if (address !== undefined) options.openSockets?.opened(address);
      const connection = new ClientConnection(socket, options.hub, connectionOptions, {
        log: announcingErrors(log, events),
        events,
        ...(remoteAddress === undefined ? {} : { remoteAddress, address: address! }),
      });
      const tracked: LiveConnection = { connection, alive: true };
      live.set(socket, tracked);
      events.emit('connection:opened', {
        connectionId: connection.id,
        ...(remoteAddress === undefined ? {} : { remoteAddress }),
      });
      return {
        message: (data, isBinary = false) => connection.receive(data, isBinary),
        pong: () => {
          tracked.alive = true;
        },
        refused: (code, detail) => {
          tracked.refusedWith = code;
          // The closing line says it; the detail is for debugging. Anyone can send these,
          // so nothing louder than debug.
          log.debug?.({ code, reason: detail }, 'websocket frame refused');
        },
        closed: (code) => {
          if (!live.delete(socket)) return;
          if (address !== undefined) options.openSockets?.release(address);
          connection.closed(tracked.refusedWith ?? code);
        },
      };
    },

    events,

    get connections() {
      return live.size;
    },

    drain: () => stop(options.hub.clustered),

    endDrain() {
      // The hub's shutdown called again stops the running turns at once; a failure of it
      // is the drain's own, which its caller hears.
      if (stopped) options.hub.shutdown().catch(() => {});
    },

    get draining() {
      return !accepting;
    },

    async closeAll() {
      const done = stop(false);
      // No drain: the running turns are stopped now (a failure is the one `done` rejects with).
      options.hub.shutdown().catch(() => {});
      await done;
    },

    dispose() {
      accepting = false;
      clearInterval(heartbeat);
    },
  };
}
