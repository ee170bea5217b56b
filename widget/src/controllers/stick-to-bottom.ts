/**
 * Keeps a scrolling transcript at its newest line while the reader is there, and lets
 * it be once the reader scrolls up to read, until they jump back. A Lit
 * ReactiveController: the element renders the "jump to latest" button from `stuck`.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Within this many pixels of the bottom, the transcript follows new output. */
export const STICK_PX = 48;

export class StickToBottom implements ReactiveController {
  /** True while new output scrolls into view. */
  stuck = true;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly scroller: () => HTMLElement | null | undefined,
  ) {
    host.addController(this);
  }

  hostUpdated(): void {
    // In a microtask: the status line and the cards render their text after this, in
    // microtasks queued when they connected, and the bottom is where they end.
    if (this.stuck) queueMicrotask(() => this.#toBottom());
  }

  /** For the scroller's `scroll` event. */
  readonly onScroll = (): void => {
    const t = this.scroller();
    if (!t) return;
    const stuck = t.scrollHeight - t.scrollTop - t.clientHeight <= STICK_PX;
    if (stuck === this.stuck) return;
    this.stuck = stuck;
    this.host.requestUpdate();
  };

  /** Back to the newest line, and following again. */
  readonly jump = (): void => {
    this.stuck = true;
    this.#toBottom();
    this.host.requestUpdate();
  };

  #toBottom(): void {
    const t = this.scroller();
    if (t) t.scrollTop = t.scrollHeight;
  }
}
