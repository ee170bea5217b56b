/**
 * Where finished messages live. A turn is bracketed: `beginTurn` stores the user
 * message and marks the turn as running, `endTurn` stores the assistant's final message
 * and clears the mark, each in one step. A crash in between leaves the mark, and
 * `recoverInterruptedTurns` at the next start turns it into an assistant message with
 * status `error`: the history never ends on a question nobody answered.
 */
import type { ChatMessage } from '@aalis/protocol';

export interface HistoryPage {
  /** Oldest first. */
  messages: ChatMessage[];
  /** True when older messages exist. */
  hasMore: boolean;
}

export interface HistoryStore {
  createSession(sessionId: string, now: number): void;
  hasSession(sessionId: string): boolean;
  beginTurn(sessionId: string, userMessage: ChatMessage, now: number): void;
  endTurn(sessionId: string, assistantMessage: ChatMessage): void;
  /** The last `limit` messages, or the last `limit` before the message with id `before`. */
  page(sessionId: string, options: { limit: number; before?: string }): HistoryPage;
  /** Marks turns a crash left running as failed; returns how many there were. */
  recoverInterruptedTurns(): number;
  close(): void;
}

/** The assistant message that stands for a turn the server did not live to finish. */
export function interruptedTurnMessage(id: string, startedAt: number): ChatMessage {
  return { id, role: 'assistant', parts: [], createdAt: startedAt, status: 'error' };
}
