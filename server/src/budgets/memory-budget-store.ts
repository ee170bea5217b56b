/**
 * Budget counters in memory: for the memory history, and tests. Lost on restart, as that
 * history is. Asynchronous only because the store interface is (Redis must be): each call
 * still does its work before returning.
 */
import type { BudgetStore } from './budget-store.js';

export class MemoryBudgetStore implements BudgetStore {
  readonly #counts = new Map<string, { count: number; expiresAt: number }>();

  async count(key: string, windowStart: number): Promise<number> {
    return this.#counts.get(slot(key, windowStart))?.count ?? 0;
  }

  async add(key: string, windowStart: number, amount: number, expiresAt: number): Promise<number> {
    const id = slot(key, windowStart);
    const row = this.#counts.get(id) ?? { count: 0, expiresAt };
    row.count += amount;
    this.#counts.set(id, row);
    return row.count;
  }

  async forget(key: string, windowStarts: readonly number[]): Promise<void> {
    for (const start of windowStarts) this.#counts.delete(slot(key, start));
  }

  async prune(now: number): Promise<void> {
    for (const [id, row] of this.#counts) if (row.expiresAt <= now) this.#counts.delete(id);
  }
}

const slot = (key: string, windowStart: number): string => `${windowStart} ${key}`;
