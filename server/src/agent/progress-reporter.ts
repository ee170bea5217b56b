/**
 * What a running tool says of its progress, made safe to send: numbers that are finite
 * and not negative, a message cut to a readable length, and nothing once the tool has
 * ended (a tool may report from a timer it forgot to stop). Reports are not throttled
 * here: each replaces the last in every view, and a socket that falls behind sends only
 * the latest (outbox.ts).
 */
import type { ToolProgress } from '@aalis/protocol';

/** A progress message longer than this is cut: it is a status line, not a log. */
export const MAX_PROGRESS_MESSAGE_CHARS = 500;

export class ProgressReporter {
  #ended = false;

  constructor(private readonly send: (update: ToolProgress) => void) {}

  /** For the tool's context: ignores what it cannot show instead of throwing into the tool. */
  readonly report = (update: ToolProgress): void => {
    if (this.#ended || !isAmount(update?.progress)) return;
    const clean: ToolProgress = { progress: update.progress };
    if (isAmount(update.total)) clean.total = update.total;
    if (typeof update.message === 'string' && update.message)
      clean.message = update.message.slice(0, MAX_PROGRESS_MESSAGE_CHARS);
    this.send(clean);
  };

  /** The tool ended: later reports are dropped. */
  stop(): void {
    this.#ended = true;
  }
}

const isAmount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;
