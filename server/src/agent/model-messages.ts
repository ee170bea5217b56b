/**
 * The conversation as a model must see it, from the stored messages. An assistant
 * message holds every round of its turn in order (reasoning, text, tool calls with their
 * results, more text); the model wants each round as an assistant message with its tool
 * calls, followed by one tool message per call.
 */
import { imagesOf } from './cap-result.js';
import type { ChatMessage, Part, ToolCallPart } from '@aalis/protocol';
import type { ModelMessage } from '../providers/types.js';

/** What the model is told about a call that never finished (an aborted or failed turn). */
const UNFINISHED = 'Error: this tool call did not finish (the turn was interrupted).';
/** What the model is told about a call whose server stopped while it ran (status `unknown`). */
const MAY_HAVE_COMPLETED =
  'Unknown outcome: the server stopped while this tool call ran, so it may have completed. It was not run again; check before calling it again.';

export function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: textOf(message.parts, 'text') });
    else out.push(...assistantRounds(message.parts));
  }
  return out;
}

function assistantRounds(parts: readonly Part[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let text: Part[] = [];
  let calls: ToolCallPart[] = [];
  const flush = () => {
    const content = textOf(text, 'text');
    const reasoning = textOf(text, 'reasoning');
    if (!content && !reasoning && !calls.length) return;
    out.push({
      role: 'assistant',
      content,
      ...(reasoning ? { reasoning } : {}),
      ...(calls.length
        ? {
            toolCalls: calls.map((call) => ({
              id: call.callId,
              index: call.index,
              name: call.name,
              arguments: argumentsText(call.arguments),
            })),
          }
        : {}),
    });
    for (const call of calls)
      out.push({ role: 'tool', toolCallId: call.callId, name: call.name, content: resultText(call) });
    text = [];
    calls = [];
  };
  for (const part of parts) {
    if (part.type === 'tool_call') calls.push(part);
    else {
      // Text after a group of tool calls belongs to the next round.
      if (calls.length) flush();
      text.push(part);
    }
  }
  flush();
  return out;
}

const textOf = (parts: readonly Part[], type: 'text' | 'reasoning'): string =>
  parts.map((p) => (p.type === type ? p.text : '')).join('');

/** Arguments that were not valid JSON are kept as the raw text the model wrote. */
const argumentsText = (args: unknown): string =>
  typeof args === 'string' ? args : JSON.stringify(args ?? {});

function resultText(call: Pick<ToolCallPart, 'status' | 'result'>): string {
  if (call.status === 'unknown') return MAY_HAVE_COMPLETED;
  if (call.status === 'running' || call.result === undefined)
    return call.status === 'done' ? 'null' : UNFINISHED;
  const result = withoutImageData(call.result);
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return call.status === 'error' ? `Error: ${text}` : text;
}

/**
 * Images a tool returned are for the user (the tool block shows them): the model reads a
 * tool message as text, and base64 would only fill its context. It is told they exist.
 */
function withoutImageData(result: unknown): unknown {
  const images = imagesOf(result);
  if (!images) return result;
  return {
    ...(result as object),
    images: images.map(({ mimeType, data }) => ({
      type: 'image',
      mimeType,
      note: `an image of about ${Math.round((data.length * 3) / 4 / 1024)} KB, shown to the user`,
    })),
  };
}
