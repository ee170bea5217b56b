/**
 * Tools run at most once. Every execution is recorded in the history before the tool
 * starts and again when it ends (history/store.ts `toolStarting`, `toolEnded`), keyed by
 * its turn and call id: a call recorded before never runs again, whatever reconnects,
 * reloads or failovers happen, and one that cannot be recorded does not run at all. A
 * call recorded as started and never as ended is shown as "may have completed".
 */
import type { ToolOutcome } from './tool-runner.js';

/** Where a turn records its tool executions (the session hub binds it to the turn). */
export interface ToolExecutionLog {
  /** Records the call as starting; false when it was recorded before. */
  starting(callId: string, name: string): Promise<boolean>;
  ended(callId: string, outcome: 'done' | 'error'): Promise<void>;
}

/** What the model and the visitor read of a call that was not run again. */
export const ALREADY_RUN = 'This tool call was already run once; it is not run again.';
export const NOT_RECORDED =
  'This tool call could not be recorded, so it was not run (tools run at most once).';

/**
 * Runs `execute` only when the log records the call as starting, and records its end
 * unless the turn's stop cut it off. A failure to record its end is reported (by id) and
 * changes nothing for the turn: the call did run.
 */
export async function runOnce(
  log: ToolExecutionLog | undefined,
  call: { id: string; name: string },
  execute: () => Promise<ToolOutcome>,
  report: (error: unknown, what: string) => string,
): Promise<ToolOutcome> {
  if (!log) return execute();
  try {
    if (!(await log.starting(call.id, call.name))) return { result: ALREADY_RUN, isError: true };
  } catch (error) {
    report(error, `recording tool call ${call.id} before it ran failed: it was not run`);
    return { result: NOT_RECORDED, isError: true };
  }
  const outcome = await execute();
  // A call the turn's stop cut off stays recorded as started and never ended: it may
  // have completed, and is never run again.
  if (outcome.cancelled) return outcome;
  try {
    await log.ended(call.id, outcome.isError ? 'error' : 'done');
  } catch (error) {
    report(error, `recording how tool call ${call.id} ended failed`);
  }
  return outcome;
}
