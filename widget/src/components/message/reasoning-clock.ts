/**
 * How long each reasoning part of the running turn took: from its first delta until the
 * next part began. Timed on this page, since the protocol carries no reasoning times:
 * a part that was already there when the page joined (a reload, `stream_resume`) is not
 * timed, and shows "Reasoning" with no duration rather than a wrong one.
 */
import type { Part } from '@aalis/protocol/client';

export class ReasoningClock {
  /** When each reasoning part of the running turn began, by position; NaN: not seen begin. */
  #began = new Map<number, number>();
  #took = new Map<number, number>();
  /** Finished answers' times, by message id. */
  readonly #answers = new Map<string, ReadonlyMap<number, number>>();

  /** A new turn. */
  reset(): void {
    this.#began = new Map();
    this.#took = new Map();
  }

  /** The turn as the page joined it: what reasoned before is not timed. */
  joined(parts: readonly Part[]): void {
    this.reset();
    parts.forEach((part, i) => part.type === 'reasoning' && this.#began.set(i, Number.NaN));
  }

  /** After every frame of the running turn. */
  track(parts: readonly Part[], now = Date.now()): void {
    parts.forEach((part, i) => {
      if (part.type !== 'reasoning') return;
      if (!this.#began.has(i)) this.#began.set(i, now);
      const began = this.#began.get(i)!;
      if (i + 1 < parts.length && !this.#took.has(i) && !Number.isNaN(began)) this.#took.set(i, now - began);
    });
  }

  /** The running turn's times so far. */
  get running(): ReadonlyMap<number, number> {
    return this.#took;
  }

  /** The turn ended as message `id`: its times stay with it. */
  finished(id: string): void {
    if (this.#took.size) this.#answers.set(id, this.#took);
    this.reset();
  }

  of(id: string): ReadonlyMap<number, number> | undefined {
    return this.#answers.get(id);
  }
}
