/**
 * Limits per client address, across connections: sockets open at once and new sockets per
 * minute, both refused with HTTP 429 and `Retry-After` before the upgrade. `send` frames
 * per minute are counted in the budgets' store instead (budgets/address-sends.ts), shared
 * by every instance and kept across restarts; their limit is configured here. An address
 * is its count key (address-form.ts: an IPv6 address's /64). Only a socket whose upgrade
 * completed holds a place (`opened`), so plain requests on a keep-alive connection never
 * take one. Memory is bounded: at most `maxTrackedIps` addresses are remembered, the least
 * recently seen dropped first (one with sockets still open only when every one has some).
 */
import { RateWindow } from '../util/rate-window.js';

/** The plugin's `ipLimits` option and the configuration file's `ipLimits` block; 0 is no limit. */
export interface IpLimitSettings {
  /** Sockets one IP may have open at once (default 20). */
  maxConnections?: number;
  /** New sockets one IP may open per minute (default 60). */
  connectionsPerMinute?: number;
  /** `send` frames one IP may send per minute, over all its connections and instances (default 30). */
  sendsPerMinute?: number;
  /**
   * Proxies whose `X-Forwarded-For` names the client: IP addresses, and `loopback` for
   * 127.0.0.0/8 and ::1. Without any, the client is the socket's peer.
   */
  trustProxy?: string[];
  /**
   * How many leading bits of an IPv6 address name one client (default 64: the block any
   * home router hands out); every per-address count keeps one count per such block.
   */
  ipv6Prefix?: number;
}

export interface IpLimitOptions extends IpLimitSettings {
  /** The clock (tests). */
  now?: () => number;
  /** Addresses remembered at most (default 10,000). */
  maxTrackedIps?: number;
}

export type IpLimitValues = Required<Omit<IpLimitSettings, 'trustProxy' | 'ipv6Prefix'>>;

export const DEFAULT_IP_LIMITS: IpLimitValues = {
  maxConnections: 20,
  connectionsPerMinute: 60,
  sendsPerMinute: 30,
};

/** Each number setting: the variable that wins over it, its default, and what it is (for --help). */
export const IP_LIMIT_VARIABLES: Array<[key: keyof IpLimitValues, variable: string, meaning: string]> = [
  [
    'maxConnections',
    'AALIS_IP_MAX_CONNECTIONS',
    'sockets one client IP may have open at once (more get HTTP 429); 0: no limit',
  ],
  [
    'connectionsPerMinute',
    'AALIS_IP_CONNECTIONS_PER_MINUTE',
    'new sockets one client IP may open per minute (more get HTTP 429); 0: no limit',
  ],
  [
    'sendsPerMinute',
    'AALIS_IP_SENDS_PER_MINUTE',
    'send frames one client IP may send per minute, over all its connections (more get rate_limited); 0: no limit',
  ],
];

export const TRUST_PROXY_VARIABLE = 'AALIS_TRUST_PROXY';

export const MAX_TRACKED_IPS = 10_000;
const MINUTE_MS = 60_000;
/** What a refusal for too many open sockets says to wait: no window ends, a socket must close. */
const FULL_RETRY_MS = 60_000;

export type IpRefusal = {
  ok: false;
  limit: 'ip_connections' | 'ip_connections_per_minute' | 'ip_sends';
  retryInMs: number;
};

/**
 * New sockets per minute counted for the whole site rather than per instance
 * (cluster/shared-ip-rates.ts keeps them in Redis): the endpoint takes one when the
 * composition hands it one.
 */
export interface SharedIpRates {
  take(limit: 'ip_connections_per_minute', ip: string, max: number): Promise<{ ok: true } | IpRefusal>;
}

interface Tracked {
  open: number;
  opens: RateWindow | undefined;
}

export class IpLimits {
  readonly limits: IpLimitValues;
  readonly #tracked = new Map<string, Tracked>();
  readonly #now: () => number;
  readonly #maxTracked: number;

  constructor(options: IpLimitOptions = {}) {
    this.limits = {
      maxConnections: options.maxConnections ?? DEFAULT_IP_LIMITS.maxConnections,
      connectionsPerMinute: options.connectionsPerMinute ?? DEFAULT_IP_LIMITS.connectionsPerMinute,
      sendsPerMinute: options.sendsPerMinute ?? DEFAULT_IP_LIMITS.sendsPerMinute,
    };
    this.#now = options.now ?? Date.now;
    this.#maxTracked = Math.max(1, options.maxTrackedIps ?? MAX_TRACKED_IPS);
  }

  /** Addresses remembered now. */
  get trackedIps(): number {
    return this.#tracked.size;
  }

  /** Sockets open now from `ip`. */
  openConnections(ip: string): number {
    return this.#tracked.get(ip)?.open ?? 0;
  }

  /**
   * A socket from `ip` asks to open: whether it may (a place free, and within the
   * minute's new sockets, which this counts), else why not and for how long. The place is
   * taken only by `opened`, once the upgrade completed.
   */
  admit(ip: string): { ok: true } | IpRefusal {
    const { maxConnections } = this.limits;
    const tracked = this.#touch(ip);
    if (maxConnections > 0 && tracked.open >= maxConnections)
      return { ok: false, limit: 'ip_connections', retryInMs: FULL_RETRY_MS };
    if (tracked.opens) {
      const taken = tracked.opens.take();
      if (!taken.ok) return { ok: false, limit: 'ip_connections_per_minute', retryInMs: taken.retryInMs };
    }
    return { ok: true };
  }

  /** A socket `admit` let in has completed its upgrade: it holds a place until `release`. */
  opened(ip: string): void {
    this.#touch(ip).open++;
  }

  /** A socket `opened` counted has closed. */
  release(ip: string): void {
    const tracked = this.#tracked.get(ip);
    if (tracked && tracked.open > 0) tracked.open--;
  }

  /** The address's counts, made the most recently seen; the least recent dropped past the cap. */
  #touch(ip: string): Tracked {
    let tracked = this.#tracked.get(ip);
    if (tracked) {
      this.#tracked.delete(ip);
    } else {
      const { connectionsPerMinute } = this.limits;
      tracked = {
        open: 0,
        opens:
          connectionsPerMinute > 0 ? new RateWindow(connectionsPerMinute, MINUTE_MS, this.#now) : undefined,
      };
      if (this.#tracked.size >= this.#maxTracked) this.#dropOldest();
    }
    this.#tracked.set(ip, tracked);
    return tracked;
  }

  #dropOldest(): void {
    for (const [ip, tracked] of this.#tracked) {
      if (tracked.open === 0) {
        this.#tracked.delete(ip);
        return;
      }
    }
    const oldest = this.#tracked.keys().next();
    if (!oldest.done) this.#tracked.delete(oldest.value);
  }
}

/** `Retry-After`, in whole seconds (at least 1), for a refusal's `retryInMs`. */
export const retryAfterSeconds = (retryInMs: number): number => Math.max(1, Math.ceil(retryInMs / 1000));

export const IP_REFUSED_TEXT: Record<IpRefusal['limit'], string> = {
  ip_connections: 'too many connections from this address',
  ip_connections_per_minute: 'too many new connections from this address: try again later',
  ip_sends: 'too many messages from this address',
};
