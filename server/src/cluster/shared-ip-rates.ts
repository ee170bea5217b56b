/**
 * New sockets per client address and minute (transport/ip-limits.ts) counted in Redis, so that an address gets them once for the
 * whole site however many instances a round-robin balancer spreads it over. Fixed
 * one-minute windows, one INCR and PEXPIRE per check. Each instance's own limits still
 * apply in front (and its count of open sockets stays its own). Redis unreachable: the
 * shared count cannot be read and lets the request through; the instance's own limits
 * remain.
 */
import type { Redis } from 'ioredis';
import type { IpRefusal, SharedIpRates as SharedIpRateCounter } from '../transport/ip-limits.js';

const MINUTE_MS = 60_000;

export type SharedIpLimit = 'ip_connections_per_minute';

export class SharedIpRates implements SharedIpRateCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'aalis:ip:',
    private readonly now: () => number = Date.now,
  ) {}

  /** One more for `ip` in this minute's window: let through while it is at most `max` (0: no limit). */
  async take(limit: SharedIpLimit, ip: string, max: number): Promise<{ ok: true } | IpRefusal> {
    if (max <= 0) return { ok: true };
    const now = this.now();
    const start = now - (now % MINUTE_MS);
    const key = `${this.prefix}${limit}:${start}:${ip}`;
    let count: number;
    try {
      const replies = await this.redis
        .multi()
        .incr(key)
        .pexpire(key, 2 * MINUTE_MS)
        .exec();
      count = Number(replies?.[0]?.[1] ?? 0);
    } catch {
      return { ok: true };
    }
    return count <= max ? { ok: true } : { ok: false, limit, retryInMs: start + MINUTE_MS - now };
  }
}
