/**
 * Questions a running turn puts to the visitor, each open until the first of: an answer,
 * its deadline, the turn's Stop. What tool approvals (pending-approvals.ts) and MCP
 * servers' requests for input (pending-elicitations.ts) share: a request settles once, by
 * whichever comes first, and leaves the open ones as it does, so that a later answer, from
 * another tab or another instance, finds nothing and changes nothing.
 */

export interface WaitOptions<TOutcome> {
  /** How long it waits for an answer. */
  ms: number;
  /** The turn's: its abort (Stop, shutdown) ends the wait. */
  signal: AbortSignal;
  /** The outcome when `ms` pass first. */
  expired: TOutcome;
  /** The outcome when `signal` aborts first. */
  stopped: TOutcome;
  /** Runs once, as the request leaves, before the wait resolves: what the tabs are told. */
  onSettled?: (outcome: TOutcome) => void;
}

export class OpenRequests<TRequest, TOutcome> {
  readonly #open = new Map<string, { request: TRequest; settle(outcome: TOutcome): void }>();

  /**
   * Opens `request` under `id`: resolves with the outcome that settles it first. The
   * caller checks `signal` before (an aborted one would never fire) and tells the tabs
   * after, the request being open by then.
   */
  wait(id: string, request: TRequest, options: WaitOptions<TOutcome>): Promise<TOutcome> {
    const { ms, signal, expired, stopped, onSettled } = options;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(expired), ms);
      // A question nobody answers does not keep the process alive.
      timer.unref();
      const onAbort = () => settle(stopped);
      const settle = (outcome: TOutcome) => {
        // The first ending wins; an entry since replaced under the same id is not this one's.
        if (this.#open.get(id)?.settle !== settle) return;
        this.#open.delete(id);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        onSettled?.(outcome);
        resolve(outcome);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#open.set(id, { request, settle });
    });
  }

  /** The request open under `id`, if any. */
  get(id: string): TRequest | undefined {
    return this.#open.get(id)?.request;
  }

  /** Settles the request open under `id`; false when none is (answered, expired, never asked). */
  settle(id: string, outcome: TOutcome): boolean {
    const open = this.#open.get(id);
    open?.settle(outcome);
    return open !== undefined;
  }

  /** The open requests by id, as they are now: settling some while going through them is safe. */
  entries(): Array<[id: string, request: TRequest]> {
    return [...this.#open].map(([id, { request }]) => [id, request]);
  }
}
