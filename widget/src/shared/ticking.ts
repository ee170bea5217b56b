import { LitElement } from 'lit';

export const TICK_MS = 100;

/**
 * An element that re-renders itself every 100 ms while it is on the page. Times that
 * tick (a card's elapsed time, a retry's countdown) live in such small elements so that
 * only they re-render, never the transcript around them.
 */
export class TickingElement extends LitElement {
  #timer: ReturnType<typeof setInterval> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    this.#timer = setInterval(() => this.requestUpdate(), TICK_MS);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.#timer);
  }
}
