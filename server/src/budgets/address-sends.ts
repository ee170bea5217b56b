/**
 * `send` frames per client address per minute, over every connection and every instance:
 * counted in the budgets' store (Redis shared by every instance, SQLite in the data
 * folder), so that neither a round-robin balancer nor a restart hands an address a fresh
 * minute. Fixed minute windows aligned to the clock; a refused send is counted too, so a
 * flood stays refused until its minute ends. A store that cannot be reached lets the send
 * through: the connection's own send rate still holds.
 */
import type { BudgetStore } from './budget-store.js';
import { FixedWindow } from './fixed-window.js';

const MINUTE_MS = 60_000;

export type AddressSendsTaken = { ok: true } | { ok: false; retryInMs: number };

export class AddressSends {
  readonly #window: FixedWindow;

  constructor(
    store: BudgetStore,
    /** Sends allowed per address and minute; 0 is no limit. */
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#window = new FixedWindow('address_sends', MINUTE_MS, store);
  }

  /** One more send from `address` (its count key): let through while it is within the minute's limit. */
  async take(address: string): Promise<AddressSendsTaken> {
    if (this.perMinute <= 0) return { ok: true };
    const now = this.now();
    let count: number;
    try {
      count = await this.#window.add(address, 1, now);
    } catch {
      return { ok: true };
    }
    return count <= this.perMinute
      ? { ok: true }
      : { ok: false, retryInMs: this.#window.window(now).endsInMs };
  }
}
