/**
 * A turn as an AG-UI `RunAgentInput`: the session is the thread (the same `threadId` every
 * turn, so the agent can keep its own memory of it), each turn a new run, and the
 * conversation as AG-UI messages. Each stored answer becomes what the agent's own model
 * saw: per round an assistant message with its text and tool calls, then one tool message
 * per call, made by the same reading of the history the built-in agent sends its model
 * (model-messages.ts), so unfinished and failed calls say so alike. Reasoning stays out:
 * it may be signed by the model that wrote it, and an agent keeps its own. No tools of
 * ours, no context, no state: the agent runs its own.
 */
import type { ContentPart, Message, RunAgentInput } from '@ag-ui/core';
import { toModelMessages } from '../../agent/model-messages.js';
import type { ModelMessage } from '../../providers/core/types.js';
import type { RunRequest } from '../core/protocol.js';

export function runAgentInput({ sessionId, runId, history, images }: RunRequest): RunAgentInput {
  const messages = history.flatMap((stored) =>
    // Ids from the stored message: the same message has the same id on every run of the thread.
    toModelMessages([stored], images).map((message, n) =>
      agUiMessage(message, n ? `${stored.id}-${n}` : stored.id),
    ),
  );
  return { threadId: sessionId, runId, messages, tools: [], context: [], state: {}, forwardedProps: {} };
}

function agUiMessage(message: ModelMessage, id: string): Message {
  switch (message.role) {
    case 'system':
      return { id, role: 'system', content: message.content };
    case 'user': {
      if (!message.images?.length) return { id, role: 'user', content: message.content };
      const content: ContentPart[] = [
        ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
        ...message.images.map((image): ContentPart => ({
          type: 'image',
          source: { type: 'data', value: image.data, mimeType: image.mimeType },
        })),
      ];
      return { id, role: 'user', content };
    }
    case 'assistant':
      return {
        id,
        role: 'assistant',
        ...(message.content ? { content: message.content } : {}),
        ...(message.toolCalls?.length
          ? {
              toolCalls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return {
        id,
        role: 'tool',
        toolCallId: message.toolCallId,
        content: message.content,
        ...(message.isError ? { error: message.content } : {}),
      };
  }
}
