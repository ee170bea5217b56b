/**
 * The one rule for a frame that carries nothing but a card's progress: the server's
 * outbox lets a newer such frame replace a queued one, and the widget paints it at the
 * card clock's pace. Anything else in the frame (text, reasoning, the round's end, usage)
 * must reach the reader as it is.
 */
import type { ServerFrame } from './server-frames.js';
import type { ToolCallProgress } from './shapes.js';

/** The progress a `stream` frame carries when that is all it carries; otherwise undefined. */
export function progressOnly(frame: ServerFrame): ToolCallProgress | undefined {
  if (frame.type !== 'stream' || !frame.toolCallProgress) return undefined;
  if (frame.contentDelta || frame.reasoningDelta || frame.done || frame.usage) return undefined;
  return frame.toolCallProgress;
}
