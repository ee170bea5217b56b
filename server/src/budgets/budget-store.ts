/**
 * Where budget counters live: one count per key and fixed window, kept so that a restart
 * forgives nothing. SQLite beside the history (sqlite-budget-store.ts) or memory
 * (memory-budget-store.ts, with the memory history), or Redis when live state is shared
 * (redis-budget-store.ts), so limits hold across instances.
 */
export interface BudgetStore {
  /** The count of `key` in the window that starts at `windowStart`: 0 when nothing was counted. */
  count(key: string, windowStart: number): Promise<number>;
  /**
   * Adds `amount` to that count in one step and returns the new count. `expiresAt` is when
   * the window ends: from then on the row may be forgotten.
   */
  add(key: string, windowStart: number, amount: number, expiresAt: number): Promise<number>;
  /** Forgets the windows that ended at or before `now`. */
  prune(now: number): Promise<void>;
  /** Forgets the counts of `key` in these windows (a visitor erased by the owner). */
  forget(key: string, windowStarts: readonly number[]): Promise<void>;
}
