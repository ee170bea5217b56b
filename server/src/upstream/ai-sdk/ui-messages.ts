/**
 * A turn as the request `useChat`'s default transport posts to an AI SDK chat route:
 * `{ id, messages, trigger: 'submit-message' }`, the session's id as the chat's and the
 * conversation as `UIMessage`s, one per stored message with the stored id. An answer's
 * rounds are its steps (`step-start` before each), each with its text and one tool part
 * per call (`tool-<name>`, with its input and its output or error), made by the same
 * reading of the history the built-in agent sends its model (model-messages.ts), so that
 * `convertToModelMessages` on the agent's side gives its model what ours would see.
 * Reasoning stays out: it may be signed by the model that wrote it.
 */
import type { UIMessage } from 'ai';
import { toModelMessages } from '../../agent/model-messages.js';
import type { StoredMessage } from '../../agent/stored-message.js';
import { dataUrl, type ModelMessage, type ToolImage } from '../../providers/core/types.js';
import type { RunRequest } from '../core/protocol.js';

type Part = UIMessage['parts'][number];

export function chatRequest({ sessionId, history, images }: RunRequest): {
  id: string;
  messages: UIMessage[];
  trigger: 'submit-message';
} {
  return {
    id: sessionId,
    messages: history.map((stored) => uiMessage(stored, images)),
    trigger: 'submit-message',
  };
}

function uiMessage(stored: StoredMessage, images: ReadonlyMap<string, ToolImage>): UIMessage {
  const parts: Part[] = [];
  /** Each call's part, by id, for its result to fill. */
  const calls = new Map<string, number>();
  for (const message of toModelMessages([stored], images)) partsOf(message, parts, calls);
  return { id: stored.id, role: stored.role === 'user' ? 'user' : 'assistant', parts };
}

function partsOf(message: ModelMessage, parts: Part[], calls: Map<string, number>): void {
  switch (message.role) {
    case 'system':
      parts.push({ type: 'text', text: message.content });
      return;
    case 'user':
      if (message.content) parts.push({ type: 'text', text: message.content });
      for (const image of message.images ?? [])
        parts.push({ type: 'file', mediaType: image.mimeType, url: dataUrl(image) });
      return;
    case 'assistant':
      parts.push({ type: 'step-start' });
      if (message.content) parts.push({ type: 'text', text: message.content, state: 'done' });
      for (const call of message.toolCalls ?? []) {
        calls.set(call.id, parts.length);
        parts.push({
          type: `tool-${call.name}`,
          toolCallId: call.id,
          state: 'input-available',
          input: parsedOr(call.arguments),
        });
      }
      return;
    case 'tool': {
      const at = calls.get(message.toolCallId);
      if (at === undefined) return;
      const { type, toolCallId, input } = parts[at] as Extract<Part, { toolCallId: string }> & {
        input: unknown;
      };
      parts[at] = message.isError
        ? {
            type: type as `tool-${string}`,
            toolCallId,
            state: 'output-error',
            input,
            errorText: message.content,
          }
        : {
            type: type as `tool-${string}`,
            toolCallId,
            state: 'output-available',
            input,
            output: parsedOr(message.content),
          };
      return;
    }
  }
}

/** JSON text as its value; text that is not JSON as itself. */
function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
