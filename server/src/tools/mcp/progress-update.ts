/**
 * An MCP `notifications/progress` as the tool block shows it. The protocol's frame wants
 * `progress` and `total` finite and not negative; a server's mistake there is dropped,
 * never passed on to fail the frame, and a long message is cut.
 */
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '../define-tool.js';

const MAX_MESSAGE_CHARS = 500;

const usable = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

export function reportProgress(context: Pick<ToolContext, 'progress'>, update: Progress): void {
  if (!usable(update.progress)) return;
  context.progress({
    progress: update.progress,
    ...(usable(update.total) ? { total: update.total } : {}),
    ...(typeof update.message === 'string' && update.message !== ''
      ? { message: update.message.slice(0, MAX_MESSAGE_CHARS) }
      : {}),
  });
}
