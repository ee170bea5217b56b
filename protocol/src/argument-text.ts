/**
 * A tool call's argument text while the model writes it (`argumentsDelta` on a `stream`
 * frame's progress, `arguments` on a progress entry) travels between the server's own
 * parts: the agent, the session buffer, other instances, the AG-UI endpoint (whose clients
 * expect every fragment). A WebSocket client never gets it: the card needs only the count,
 * and the arguments cross the socket once, with the call's `tool_execute` `start`.
 */
import type { ServerFrame } from './server-frames.js';
import type { ToolCallProgressEntry } from './shapes.js';

/** The frame as a WebSocket client gets it: the same object when it carries no argument text. */
export function withoutArgumentText(frame: ServerFrame): ServerFrame {
  if (frame.type === 'stream') {
    const progress = frame.toolCallProgress;
    if (progress?.argumentsDelta === undefined) return frame;
    const { argumentsDelta: _text, ...lean } = progress;
    return { ...frame, toolCallProgress: lean };
  }
  if (frame.type === 'stream_resume') {
    if (!frame.toolCallsProgress.some((entry) => entry.arguments !== undefined)) return frame;
    return { ...frame, toolCallsProgress: frame.toolCallsProgress.map(leanEntry) };
  }
  return frame;
}

function leanEntry(entry: ToolCallProgressEntry): ToolCallProgressEntry {
  if (entry.arguments === undefined) return entry;
  const { arguments: _text, ...lean } = entry;
  return lean;
}
