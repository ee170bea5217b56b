/**
 * Tells the visitor when the model has gone quiet: fires once a stream (or a request
 * still waiting for its response) has been silent for a while, and not again until
 * something was shown in between, so that the visitor's "waiting" clock is not reset by
 * items that carry nothing to show (keep-alives, role-only chunks).
 */
export class SilenceNotice {
  #timer: NodeJS.Timeout | undefined;
  /** A notice was given and nothing visible came since. */
  #noticed = false;

  constructor(
    readonly ms: number,
    private readonly notify: () => void,
  ) {}

  /** Something arrived: the silence starts over. */
  heard(): void {
    if (this.#timer) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      if (this.#noticed) return;
      this.#noticed = true;
      this.notify();
    }, this.ms);
  }

  /** Something reached the visitor: the next silence deserves a notice of its own. */
  shown(): void {
    this.#noticed = false;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
