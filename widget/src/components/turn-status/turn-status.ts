import { property } from 'lit/decorators.js';
import { toServerTime, type TurnStatusEntry, type TurnView } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { TickingElement } from '../../shared/ticking.js';

/**
 * What the status line says at `serverNow` (the server's clock): how long the model has
 * been silent, or how long until the server asks it again. Whole seconds, never below 0.
 */
export function turnStatusText(status: TurnStatusEntry, strings: Strings, serverNow: number): string {
  const elapsed = Math.max(0, serverNow - status.since);
  const countdown = Math.max(0, Math.ceil(((status.retryInMs ?? 0) - elapsed) / 1000));
  switch (status.state) {
    case 'waiting':
      return strings.turnWaiting(Math.floor(elapsed / 1000));
    case 'unresponsive':
      return strings.turnUnresponsive(Math.floor(elapsed / 1000));
    case 'saving':
      return strings.turnSaving(countdown, status.attempt);
    default:
      return strings.turnRetrying(countdown, status.attempt);
  }
}

/**
 * Why nothing streams while a turn runs: "Waiting for the model… 12 s", "The model
 * service is busy: trying again in 5 s (attempt 2)", "Saving the answer: trying again in
 * 4 s", or "The server running this answer is not responding… 3 s". Counts on the server's clock (the
 * status is stamped with it), so a reloaded page on a wrong clock shows the same
 * seconds. Plain text in its shadow root: it inherits the colour and font of its host.
 */
export class AalisTurnStatus extends TickingElement {
  @property({ attribute: false }) status!: TurnStatusEntry;
  /** `localNow - serverTime`: the line counts on the server's clock. */
  @property({ attribute: false }) offset = 0;
  @property({ attribute: false }) strings!: Strings;

  protected override render() {
    return turnStatusText(this.status, this.strings, toServerTime(Date.now(), this.offset));
  }
}

/**
 * The status the turn shows. A wait while tool calls are being written is not shown:
 * each card says itself when the model stalls, and two clocks for one wait would
 * disagree. A retry is always shown.
 */
export function shownStatus(turn: TurnView): TurnView['status'] {
  const { status } = turn;
  if (status?.state === 'waiting' && turn.toolCallsProgress.size) return undefined;
  return status;
}
