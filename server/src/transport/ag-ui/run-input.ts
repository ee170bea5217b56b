/**
 * The turn an AG-UI `RunAgentInput` asks for: the text of its newest user message. The
 * rest of `messages` is the client's copy of the conversation, which the session already
 * holds (its history is the server's, as for every tab), so it is not read.
 */
import type { Message } from '@ag-ui/core';
import { Limits } from '@aalis/protocol';

export function questionOf(messages: readonly Message[]): string | { error: string } {
  const newest = messages.findLast((message) => message.role === 'user');
  if (!newest) return { error: 'RunAgentInput.messages: no user message to answer' };
  const { content } = newest as { content: unknown };
  // A user message's content is text, or parts of which the text ones are read.
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .flatMap((part: { type?: unknown; text?: unknown }) =>
              part.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
            )
            .join('\n')
        : '';
  if (!text.trim()) return { error: 'RunAgentInput.messages: the newest user message has no text' };
  if (text.length > Limits.messageText)
    return {
      error: `RunAgentInput.messages: the newest user message is over ${Limits.messageText} characters`,
    };
  return text;
}
