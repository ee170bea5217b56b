/**
 * Typed events, announced by the code where something happens and heard by whoever
 * subscribes (metrics, logs, a host's own tracker), as Fastify's hooks and graphql-ws's
 * callbacks are. A listener that throws is reported to `onListenerError` and never reaches
 * the code that announced the event, nor stops the other listeners.
 *
 *   const events = new Events<{ 'turn:ended': TurnSummary }>(onListenerError);
 *   const off = events.on('turn:ended', (summary) => ...);
 *   events.emit('turn:ended', summary);
 */

export type EventListener<T> = (payload: T) => void;

export class Events<M extends object> {
  readonly #listeners = new Map<keyof M, Set<EventListener<never>>>();

  constructor(private readonly onListenerError: (error: unknown, event: keyof M) => void) {}

  /** Hears every `event` from now on; returns the function that stops hearing it. */
  on<E extends keyof M>(event: E, listener: EventListener<M[E]>): () => void {
    let listeners = this.#listeners.get(event);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(event, listeners);
    }
    const added = listener as EventListener<never>;
    listeners.add(added);
    return () => listeners.delete(added);
  }

  emit<E extends keyof M>(event: E, payload: M[E]): void {
    const listeners = this.#listeners.get(event);
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        (listener as EventListener<M[E]>)(payload);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}
