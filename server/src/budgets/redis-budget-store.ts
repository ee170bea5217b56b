/**
 * Budget counters in Redis, shared by every instance behind the same load balancer, so a
 * visitor's limits hold whichever instance their sends reach. One Redis key per counter
 * and window (`aalis:budget:<window start>:<key>`) holding a plain integer.
 *
 * Counting is INCRBY and PEXPIREAT in one MULTI: the count and its expiry are set
 * together, so no key is ever left without an end (a crash between two separate commands
 * would leave one that lives forever). Reading is one GET. The window's start is part of
 * the key, so a count can never leak into the next window even while an old key waits to
 * expire. The end is this instance's clock read against Redis's: clocks kept in step
 * (NTP) matter only in a window's last moments.
 *
 * The connection is the caller's: its reconnect and offline-queue settings decide how
 * long a count waits while Redis is away (the hub lets a send through when the budgets
 * cannot be read, and logs a count that cannot be stored).
 */
import type { Redis } from 'ioredis';
import type { BudgetStore } from './budget-store.js';

export const DEFAULT_BUDGET_KEY_PREFIX = 'aalis:budget:';

export class RedisBudgetStore implements BudgetStore {
  constructor(
    readonly redis: Redis,
    /** Keeps these keys apart from others on the same Redis (several deployments, tests). */
    readonly keyPrefix: string = DEFAULT_BUDGET_KEY_PREFIX,
  ) {}

  async count(key: string, windowStart: number): Promise<number> {
    const value = await this.redis.get(this.#slot(key, windowStart));
    return value === null ? 0 : Number(value);
  }

  async add(key: string, windowStart: number, amount: number, expiresAt: number): Promise<number> {
    const slot = this.#slot(key, windowStart);
    const replies = await this.redis.multi().incrby(slot, amount).pexpireat(slot, expiresAt).exec();
    // exec() answers null only when a WATCHed key changed; nothing is watched here.
    if (!replies) throw new Error(`counting ${slot} in Redis was aborted`);
    const [[incrError, total], [expireError]] = replies as [[Error | null, number], [Error | null, unknown]];
    if (incrError) throw incrError;
    if (expireError) throw expireError;
    return total;
  }

  /**
   * Nothing to do: every key expires by itself when its window ends (PEXPIREAT in `add`),
   * and Redis forgets it then, on every instance at once. Scanning for ended windows here
   * would only cost a walk over the keyspace.
   */
  async prune(_now: number): Promise<void> {}

  async forget(key: string, windowStarts: readonly number[]): Promise<void> {
    if (windowStarts.length) await this.redis.del(...windowStarts.map((start) => this.#slot(key, start)));
  }

  #slot(key: string, windowStart: number): string {
    return `${this.keyPrefix}${windowStart}:${key}`;
  }
}
