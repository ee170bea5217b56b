/**
 * The options of the socket endpoint that every adapter has (the Fastify plugin, the
 * plain `ws` one): who may open it, and the limits of each connection.
 */
import type { ConnectionOptions } from './client-connection.js';

export interface ChatEndpointOptions {
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
  /** Largest frame a client may send, in bytes (default 64 KiB). */
  maxFrameBytes?: number;
  /** Ping interval; a socket that missed the last pong is terminated (default 30 s). */
  heartbeatMs?: number;
  connection?: Partial<ConnectionOptions>;
}

export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024;

/** The connection options with the token in them; an empty token means none. */
export function connectionOptionsOf(options: ChatEndpointOptions): Partial<ConnectionOptions> {
  return { ...options.connection, token: options.token || undefined };
}
