/** Counts events in a sliding time window: at most `max` per `windowMs`. */
export class RateWindow {
  readonly #times: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records an event if it fits; otherwise says how many ms until one would. */
  take(): { ok: true } | { ok: false; retryInMs: number } {
    const now = this.now();
    while (this.#times.length && this.#times[0]! <= now - this.windowMs) this.#times.shift();
    if (this.#times.length >= this.max)
      return { ok: false, retryInMs: this.#times[0]! + this.windowMs - now };
    this.#times.push(now);
    return { ok: true };
  }
}
