/**
 * Failed token checks per key (visitor-auth.ts keys them by client address and claimed
 * subject): after `max` in one window, further tokens under that key are refused without
 * being verified until the window ends, so a script cannot try signatures for a subject
 * as fast as it can send.
 */
export interface FailureThrottleOptions {
  /** Failures allowed per window (default 10). */
  max?: number;
  /** The window, from the first failure (default one minute). */
  windowMs?: number;
  /** Addresses tracked at most; the oldest are forgotten past it (default 10,000). */
  maxAddresses?: number;
  now?: () => number;
}

interface Window {
  startedAt: number;
  failures: number;
}

export class FailureThrottle {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #maxAddresses: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(options: FailureThrottleOptions = {}) {
    this.#max = options.max ?? 10;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxAddresses = options.maxAddresses ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Whether tokens from `address` are refused unchecked now. */
  blocked(address: string): boolean {
    const window = this.#current(address);
    return window !== undefined && window.failures >= this.#max;
  }

  /** A token from `address` failed its check. */
  failed(address: string): void {
    const window = this.#current(address);
    if (window) {
      window.failures++;
      return;
    }
    if (this.#windows.size >= this.#maxAddresses) this.#prune();
    this.#windows.set(address, { startedAt: this.#now(), failures: 1 });
  }

  #current(address: string): Window | undefined {
    const window = this.#windows.get(address);
    if (window && this.#now() - window.startedAt >= this.#windowMs) {
      this.#windows.delete(address);
      return undefined;
    }
    return window;
  }

  /** Ended windows go; if that is not enough, the oldest (a Map keeps insertion order). */
  #prune(): void {
    const now = this.#now();
    for (const [address, window] of this.#windows)
      if (now - window.startedAt >= this.#windowMs) this.#windows.delete(address);
    while (this.#windows.size >= this.#maxAddresses) this.#windows.delete(this.#windows.keys().next().value!);
  }
}
