/**
 * A watchdog for a response stream: fires once when the stream stays silent longer than
 * allowed. The provider aborts its request then, and reports a `timeout`.
 */
import { ProviderError } from './errors.js';

export class IdleTimer {
  fired = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  /**
   * (Re)starts the wait: call it when the stream starts and on every chunk. Refreshing
   * the one timer, rather than replacing it, keeps a busy stream from allocating a timer
   * per fragment.
   */
  start(): void {
    if (this.#timer && !this.fired) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  error(provider: string): ProviderError {
    return new ProviderError('timeout', `${provider} sent nothing for ${Math.round(this.ms / 1000)} s`);
  }
}
