/**
 * Watches one model round for silence, with one timer for both of its limits:
 * - after `noticeMs` the visitor is told that the model is being waited for, once per
 *   silence: not again until something was shown in between, so that items carrying
 *   nothing to show (keep-alives, role-only chunks) do not reset the visitor's clock;
 * - after `idleMs`, once the response has started, the round is given up.
 *
 * An upstream item only notes the time (`heard`), so a busy stream costs no timer work
 * per item: when the timer fires, it measures the silence that really passed and sleeps
 * again for what is left of the nearer limit.
 */
import { formatSeconds } from '../../util/format-seconds.js';
import { ProviderError } from './errors.js';

export class SilenceWatch {
  /** The idle limit passed and the round was given up. */
  idle = false;
  #heardAt = 0;
  #timer: NodeJS.Timeout | undefined;
  /** A notice was given and nothing visible came since. */
  #noticed = false;
  /** The idle limit applies: the response has started. */
  #streaming = false;

  constructor(
    private readonly noticeMs: number,
    private readonly idleMs: number,
    private readonly notify: () => void,
    private readonly onIdle: () => void,
  ) {}

  /** A request is made (again): the silence starts over, and deserves a notice of its own. */
  attempt(): void {
    this.#heardAt = performance.now();
    this.#noticed = false;
    this.#rearm();
  }

  /** Waiting to retry: the countdown tells the visitor, nothing else needs to. */
  pause(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The response started: from now on a silence of `idleMs` ends the round. */
  streaming(): void {
    this.#heardAt = performance.now();
    this.#streaming = true;
    this.#rearm();
  }

  /** An upstream item arrived: the silence starts over. */
  heard(): void {
    this.#heardAt = performance.now();
  }

  /** Something reached the visitor: the next silence deserves a notice of its own. */
  shown(): void {
    if (!this.#noticed) return;
    this.#noticed = false;
    this.#rearm();
  }

  stop(): void {
    this.pause();
  }

  idleError(provider: string): ProviderError {
    return new ProviderError('timeout', `${provider} sent nothing for ${formatSeconds(this.idleMs)}`);
  }

  #check = (): void => {
    this.#timer = undefined;
    const silentMs = performance.now() - this.#heardAt;
    if (this.#streaming && silentMs >= this.idleMs) {
      this.idle = true;
      this.onIdle();
      return;
    }
    if (!this.#noticed && silentMs >= this.noticeMs) {
      this.#noticed = true;
      this.notify();
    }
    this.#rearm();
  };

  /** Sleeps until the nearer limit still ahead, measured from the last item heard. */
  #rearm(): void {
    this.pause();
    const silentMs = performance.now() - this.#heardAt;
    const due = Math.min(
      this.#noticed ? Infinity : this.noticeMs - silentMs,
      this.#streaming ? this.idleMs - silentMs : Infinity,
    );
    if (due !== Infinity) this.#timer = setTimeout(this.#check, Math.max(1, Math.ceil(due)));
  }
}
