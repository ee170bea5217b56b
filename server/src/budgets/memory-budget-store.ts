/** Budget counters in memory: for the memory history, and tests. Lost on restart, as that history is. */
import type { BudgetStore } from './budget-store.js';

export class MemoryBudgetStore implements BudgetStore {
  readonly #counts = new Map<string, { count: number; expiresAt: number }>();

  count(key: string, windowStart: number): number {
    return this.#counts.get(slot(key, windowStart))?.count ?? 0;
  }

  add(key: string, windowStart: number, amount: number, expiresAt: number): number {
    const id = slot(key, windowStart);
    const row = this.#counts.get(id) ?? { count: 0, expiresAt };
    row.count += amount;
    this.#counts.set(id, row);
    return row.count;
  }

  prune(now: number): void {
    for (const [id, row] of this.#counts) if (row.expiresAt <= now) this.#counts.delete(id);
  }
}

const slot = (key: string, windowStart: number): string => `${windowStart} ${key}`;
