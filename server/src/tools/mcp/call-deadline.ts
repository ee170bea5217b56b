/**
 * A call's silence limit: it fires when the MCP server has sent neither its result nor
 * progress for `ms`. Progress starts it again; a question to the visitor (an elicitation)
 * pauses it, since the server then waits on the visitor, not the other way round. Kept
 * here rather than in the SDK's request timeout, which only progress can restart.
 */
export class CallDeadline {
  readonly #controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #paused = 0;
  #fired = false;
  #stopped = false;

  constructor(readonly ms: number) {
    this.#arm();
  }

  /** Aborted when the limit is reached. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get fired(): boolean {
    return this.#fired;
  }

  /** The server said something: the limit counts from now. */
  restart(): void {
    if (this.#paused === 0 && !this.#fired && !this.#stopped) this.#arm();
  }

  /** Waiting on the visitor: the limit does not run until every pause is resumed. */
  pause(): void {
    this.#paused += 1;
    clearTimeout(this.#timer);
  }

  resume(): void {
    this.#paused = Math.max(0, this.#paused - 1);
    this.restart();
  }

  /** The call ended: nothing arms the limit again (an elicitation's resume comes after). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#fired = true;
      this.#controller.abort(new Error(`no result nor progress for ${this.ms} ms`));
    }, this.ms);
    // A call's limit alone does not keep the process alive.
    this.#timer.unref();
  }
}
