/**
 * The options of the socket endpoint that every adapter has (the Fastify plugin, the
 * plain `ws` one): who may open it, and the limits of each connection.
 */
import type { AuthConfig } from '../identity/auth-config.js';
import { createVisitorAuth } from '../identity/visitor-auth.js';
import type { ConnectionOptions } from './client-connection.js';
import { DEFAULT_IPV6_PREFIX, addressKey } from './address-form.js';
import { createClientIp, type ClientIpOf } from './client-ip.js';
import { IpLimits, type IpLimitOptions, type SharedIpRates } from './ip-limits.js';
import { AddressSends } from '../budgets/address-sends.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import { MemoryBudgetStore } from '../budgets/memory-budget-store.js';
import type { ChallengeConfig } from '../identity/challenge-config.js';
import { createChallengeGate } from './challenge-gate.js';

export interface ChatEndpointOptions {
  /** Exact origins allowed to open the socket besides the server's own; `*` for any. */
  allowedOrigins?: string[];
  /** When set, clients must send it in `hello` (not with `auth`, whose tokens are visitors'). */
  token?: string;
  /**
   * Signed visitor identity: `hello` carries a JWT the site's backend signed for its
   * visitor, checked with `secret` (HS256) or the keys at `jwksUrl` (RS256, ES256, EdDSA).
   * `mode: 'required'` refuses a hello without a valid token (4401); `optional` makes
   * it an anonymous visitor. A token that does not verify is refused either way.
   */
  auth?: AuthConfig;
  /**
   * A bot challenge (Cloudflare Turnstile or hCaptcha) an anonymous visitor passes before
   * its first turn (`AALIS_CHALLENGE*`); signed visitors are never asked.
   */
  challenge?: ChallengeConfig;
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
  /**
   * Limits per client IP: sockets open at once (`maxConnections`, default 20), new sockets
   * per minute (`connectionsPerMinute`, 60), both refused with HTTP 429 before the upgrade,
   * and `send` frames per minute over all its connections (`sendsPerMinute`, 30); 0 is no
   * limit. `trustProxy` lists the proxies (IPs, `loopback`) whose `X-Forwarded-For` names
   * the client. Without the option there are no per-IP limits (the CLI sets them).
   */
  ipLimits?: IpLimitOptions;
  /**
   * The new sockets per minute of `ipLimits` counted for every instance together (Redis,
   * when instances share sessions); each instance's own limit still applies in front.
   */
  sharedIpRates?: SharedIpRates;
}

/** The per-IP side of an endpoint (ipSideOf). */
export interface IpSide {
  clientIpOf: ClientIpOf;
  /** What an address's counts are kept under: itself, or an IPv6 address's /64 (`ipv6Prefix`). */
  keyOf: (ip: string) => string;
  limits?: IpLimits;
  shared?: SharedIpRates;
}

export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024;

/**
 * The connection options with the token in them (an empty token means none), the
 * visitor check made from `auth`, once per server (its failure counts and its cached keys
 * are shared by every connection), and the per-address sends counted in `counters`, the
 * store every instance shares.
 */
export function connectionOptionsOf(
  options: ChatEndpointOptions,
  ipSide?: IpSide,
  counters?: BudgetStore,
): Partial<ConnectionOptions> {
  const perMinute = ipSide?.limits?.limits.sendsPerMinute ?? 0;
  const ipSends = perMinute > 0 && counters ? new AddressSends(counters, perMinute) : undefined;
  // A pass is kept in the shared store; without one (a bare adapter), for the process.
  const challenge = options.challenge
    ? createChallengeGate({ config: options.challenge, store: counters ?? new MemoryBudgetStore() })
    : undefined;
  return {
    ...(ipSends ? { ipSends } : {}),
    ...(challenge ? { challenge } : {}),
    ...options.connection,
    token: options.token || undefined,
    ...(options.auth && !options.connection?.auth ? { auth: createVisitorAuth(options.auth) } : {}),
  };
}

/**
 * The endpoint's per-IP side, once per server: how a request's client IP is found (the
 * socket's peer, or `X-Forwarded-For` from a trusted proxy) and its limits, when set.
 */
export function ipSideOf(options: ChatEndpointOptions): IpSide {
  const clientIpOf = createClientIp(options.ipLimits?.trustProxy ?? []);
  const prefix = options.ipLimits?.ipv6Prefix ?? DEFAULT_IPV6_PREFIX;
  const keyOf = (ip: string) => addressKey(ip, prefix);
  if (!options.ipLimits) return { clientIpOf, keyOf };
  const limits = new IpLimits(options.ipLimits);
  return { clientIpOf, keyOf, limits, ...(options.sharedIpRates ? { shared: options.sharedIpRates } : {}) };
}
