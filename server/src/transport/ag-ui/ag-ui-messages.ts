/**
 * A conversation as AG-UI clients hold it (MESSAGES_SNAPSHOT): each question a user
 * message; each answer an assistant message with its text and tool calls, then one tool
 * message per call that has a result. Reasoning stays out: AG-UI clients show it only as
 * it streams.
 */
import type { Message } from '@ag-ui/core';
import type { ChatMessage, ToolCallPart } from '@aalis/protocol';

/** The text a result or arguments become where AG-UI wants a string: itself, or its JSON. */
export const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/** The id of the tool message that carries a call's result (the same live and in a snapshot). */
export const resultMessageId = (callId: string): string => `${callId}:result`;

export function agUiMessages(messages: readonly ChatMessage[]): Message[] {
  return messages.flatMap((message): Message[] => {
    const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    if (message.role === 'user') return [{ id: message.id, role: 'user', content: text }];
    const calls = message.parts.filter((p): p is ToolCallPart => p.type === 'tool_call');
    const answer: Message = {
      id: message.id,
      role: 'assistant',
      ...(text ? { content: text } : {}),
      ...(calls.length
        ? {
            toolCalls: calls.map((call) => ({
              id: call.callId,
              type: 'function' as const,
              function: { name: call.name, arguments: asText(call.arguments ?? {}) },
            })),
          }
        : {}),
    };
    const results = calls.flatMap((call): Message[] =>
      call.result === undefined
        ? []
        : [
            {
              id: resultMessageId(call.callId),
              role: 'tool',
              toolCallId: call.callId,
              content: asText(call.result),
              ...(call.status === 'error' ? { error: asText(call.result) } : {}),
            },
          ],
    );
    return [answer, ...results];
  });
}
