/**
 * A fixed-window counter: counts per subject in windows of `windowMs` aligned to the
 * epoch (an hour window starts on the hour, a day window at 00:00 UTC), so a window's end
 * is the same for every server and survives a restart without storing when it began.
 */
import type { BudgetStore } from './budget-store.js';

export class FixedWindow {
  constructor(
    /** Names the counter in the store: `visitor_turns`, `server_tokens`... */
    readonly name: string,
    readonly windowMs: number,
    readonly store: BudgetStore,
  ) {}

  /** The start of the window `now` is in, and how long until it ends. */
  window(now: number): { start: number; endsInMs: number } {
    const start = now - (now % this.windowMs);
    return { start, endsInMs: start + this.windowMs - now };
  }

  /** What `subject` counted in the current window. */
  used(subject: string, now: number): Promise<number> {
    return this.store.count(this.#key(subject), this.window(now).start);
  }

  /** Counts `amount` for `subject` in the current window; returns its new total. */
  add(subject: string, amount: number, now: number): Promise<number> {
    const { start } = this.window(now);
    return this.store.add(this.#key(subject), start, amount, start + this.windowMs);
  }

  /** Forgets `subject`'s counts: the window `now` is in and the one before (older ones expired). */
  forget(subject: string, now: number): Promise<void> {
    const { start } = this.window(now);
    return this.store.forget(this.#key(subject), [start, start - this.windowMs]);
  }

  #key(subject: string): string {
    return `${this.name}:${subject}`;
  }
}
