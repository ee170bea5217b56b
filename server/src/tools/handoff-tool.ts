/**
 * The `handoff` tool the model is offered when the site has people to hand a conversation
 * to (PROTOCOL.md section 8): the model asks for a person when the visitor wants one, or
 * when it cannot help. The visitor sees the request in the chat ("A person will join").
 */
import { defineTool, type ToolDefinition } from './define-tool.js';

/** Asks for a person in the session; resolves with the conversation's handoff state then. */
export type AskForPerson = (sessionId: string, reason?: string) => Promise<{ state: 'waiting' | 'active' }>;

export function handoffTool(ask: AskForPerson): ToolDefinition<never> {
  const tool = defineTool({
    name: 'handoff',
    description:
      'Asks a person (the site’s support staff) to join this conversation. Call it when the user asks for a human, ' +
      'or when you cannot help them; then tell the user a person will join. Do not call it again in the same conversation.',
    parameters: {
      type: 'object',
      properties: {
        reason: { type: 'string', description: 'Why a person is needed, in one sentence, for the staff' },
      },
      additionalProperties: false,
    },
    execute: async ({ reason }, { sessionId }) => {
      const handoff = await ask(sessionId, reason?.slice(0, 500));
      return handoff.state === 'active'
        ? { ok: true, note: 'a person is already answering this conversation' }
        : { ok: true, note: 'a person was asked to join; tell the user they will be with them soon' };
    },
  });
  return tool as ToolDefinition<never>;
}
