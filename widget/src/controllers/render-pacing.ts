/**
 * When the chat renders: at the next animation frame, so that the frames of one frame's
 * time make one render; but when all that changed since the last render is the count of
 * a tool-call card that is already on screen, not before the cards' own tick (TICK_MS).
 *
 * Why: a model writing three tool calls sends hundreds of fragments a second, each one a
 * new count, and rendering the chat for each frame kept the main thread busy a third of
 * the time (benchmark 4) for digits that change faster than anyone reads them. The cards
 * show their elapsed time on the same 100 ms tick, so the count keeps pace with the
 * clock beside it. Anything else (text, a new card, a tool's start, the user's own
 * input) renders at the next frame, and takes a waiting count with it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { progressOnly, type ChatView, type ServerFrame } from '@aalis/protocol/client';
import { TICK_MS } from '../shared/ticking.js';

/** Whether `frame` only moves the count of a card `before` already shows. */
export function onlyMovesACount(before: ChatView, frame: ServerFrame): boolean {
  const progress = progressOnly(frame);
  if (!progress) return false;
  const { index, name } = progress;
  const turn = before.turn;
  // A status line (waiting, retrying) that a fragment ends must go at once.
  if (!turn || turn.status) return false;
  const shown = turn.toolCallsProgress.get(index);
  return shown !== undefined && (!name || name === shown.name);
}

export class RenderPacing implements ReactiveController {
  /** The update now pending was asked for by counts alone. */
  #countsOnly = false;
  /** A count is being applied: what it asks for is a count's update. */
  #counting = false;
  /** Ends a count's wait early, when something else needs rendering. */
  #wake: (() => void) | undefined;
  #lastRender = 0;

  constructor(host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** Applies `change`, a view update that only moves a card's count, as one. */
  count(change: () => void): void {
    this.#counting = true;
    try {
      change();
    } finally {
      this.#counting = false;
    }
  }

  /** The host asked for an update; `first` when none was pending. */
  requested(first: boolean): void {
    if (first) this.#countsOnly = this.#counting;
    else if (!this.#counting && this.#countsOnly) {
      this.#countsOnly = false;
      this.#wake?.();
    }
  }

  /** Resolves when the pending update may render. */
  async due(): Promise<void> {
    const wait = this.#lastRender + TICK_MS - performance.now();
    if (this.#countsOnly && wait > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, wait);
      });
      clearTimeout(timer);
      this.#wake = undefined;
    }
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
  }

  hostUpdated(): void {
    this.#lastRender = performance.now();
  }
}
