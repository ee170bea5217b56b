/**
 * The socket endpoint as every adapter builds it, once, from its options and the composed
 * services: the admission before each upgrade (admission.ts) and the chat server the open
 * sockets are handed to (chat-server.ts), with the connections' limits, token and visitor
 * check (endpoint-options.ts). An adapter only carries requests and sockets to it.
 */
import type { BudgetStore } from '../budgets/budget-store.js';
import type { SessionHub } from '../sessions/session-hub.js';
import type { Logger } from '../util/logger.js';
import { createAdmission, type Admit } from './admission.js';
import type { ChatEvents } from './chat-events.js';
import { createChatServer, type ChatServer } from './chat-server.js';
import type { AppTools } from './app-tool-calls.js';
import { defaultConnectionOptions, type ConnectionOptions } from './client-connection.js';
import type { ClientIpOf } from './client-ip.js';
import {
  DEFAULT_MAX_FRAME_BYTES,
  connectionOptionsOf,
  ipSideOf,
  type ChatEndpointOptions,
} from './endpoint-options.js';

/** What the endpoint runs on, composed above it (compose/chat-services.ts). */
export interface EndpointServices {
  hub: SessionHub;
  events: ChatEvents;
  /** Where the per-address sends are counted, shared by every instance (the budgets' store). */
  counters?: BudgetStore;
  /** What answers the calls of the MCP Apps shown in the chat (the MCP servers'). */
  apps?: AppTools | undefined;
}

export interface ChatEndpoint {
  chat: ChatServer;
  /** Host, Origin and the per-IP limits of one upgrade request: let in, or the answer to give. */
  admit: Admit;
  /** A request's client IP: the socket's peer, or X-Forwarded-For from a trusted proxy. */
  clientIpOf: ClientIpOf;
  /** What a client IP's counts are kept under: itself, or an IPv6 address's /64. */
  addressKeyOf: (ip: string) => string;
  allowedOrigins: readonly string[];
  /** Largest frame a client may send, for the socket library. */
  maxFrameBytes: number;
  /**
   * The connections' options as the chat server has them (token, visitor check, bot
   * challenge, per-address sends): the AG-UI routes check their requests with the same ones.
   */
  connection: ConnectionOptions;
  /** The per-address count of open connections, when per-IP limits are set. */
  openSockets?: { opened(address: string): void; release(address: string): void };
}

export function createChatEndpoint(
  services: EndpointServices,
  options: ChatEndpointOptions,
  logger: Logger,
): ChatEndpoint {
  const ipSide = ipSideOf(options);
  const allowedOrigins = options.allowedOrigins ?? [];
  const { hub, events, counters, apps } = services;
  // Once: the visitor check's failure counts and cached keys are shared by every connection.
  const connection = {
    ...defaultConnectionOptions,
    ...connectionOptionsOf(options, ipSide, counters),
    ...(apps ? { apps } : {}),
  };
  const chat = createChatServer({
    hub,
    events,
    connection,
    logger,
    addressKeyOf: ipSide.keyOf,
    ...(ipSide.limits ? { openSockets: ipSide.limits } : {}),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  return {
    chat,
    admit: createAdmission({
      publicHosts: options.publicHosts ?? [],
      allowedOrigins,
      ipSide,
      events,
      draining: () => chat.draining,
    }),
    clientIpOf: ipSide.clientIpOf,
    addressKeyOf: ipSide.keyOf,
    allowedOrigins,
    maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    connection,
    ...(ipSide.limits ? { openSockets: ipSide.limits } : {}),
  };
}
