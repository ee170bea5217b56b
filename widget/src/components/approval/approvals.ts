/**
 * What the script-tag file carries of the approval cards: where their file comes from, and
 * when their minutes left change. The cards themselves (approval-cards.ts) load when a call
 * first waits for approval, live or restored after a reload (`stream_resume` carries the
 * waiting calls): the turn waits for the visitor then anyway, and most sites never make a
 * tool wait.
 */
import type { ToolApproval } from '@aalis/protocol/client';
import { LazyView } from '../../shared/lazy-view.js';

const MINUTE = 60_000;

export const approvalCards = new LazyView(() =>
  import('./approval-cards.js').then((file) => file.approvalCards),
);

/** Milliseconds until a card's minute count changes, or undefined when none will. */
export function nextMinuteIn(approvals: Iterable<ToolApproval>, serverNow: number): number | undefined {
  let next: number | undefined;
  for (const { expiresAt } of approvals) {
    const left = expiresAt - serverNow;
    if (left > 0) next = Math.min(next ?? MINUTE, left % MINUTE || MINUTE);
  }
  return next;
}
