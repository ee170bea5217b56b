/** History in memory: for tests, and for servers started without a data directory. */
import { randomUUID } from 'node:crypto';
import type { ChatMessage } from '@aalis/protocol';
import { interruptedTurnMessage, type HistoryPage, type HistoryStore } from './store.js';

export class MemoryHistoryStore implements HistoryStore {
  readonly #sessions = new Map<
    string,
    { messages: ChatMessage[]; owner: string | null; runningSince?: number; grants?: Set<string> }
  >();

  hasSession(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  ownerOf(sessionId: string): string | null | undefined {
    return this.#sessions.get(sessionId)?.owner;
  }

  beginTurn(sessionId: string, userMessage: ChatMessage, now: number, owner: string | null = null): void {
    let session = this.#sessions.get(sessionId);
    if (!session) this.#sessions.set(sessionId, (session = { messages: [], owner }));
    if (session.runningSince !== undefined)
      session.messages.push(interruptedTurnMessage(`msg_${randomUUID()}`, session.runningSince, 'unsaved'));
    session.messages.push(userMessage);
    session.runningSince = now;
  }

  endTurn(sessionId: string, assistantMessage: ChatMessage): void {
    const session = this.#session(sessionId);
    session.messages.push(assistantMessage);
    delete session.runningSince;
  }

  page(sessionId: string, { limit, before }: { limit: number; before?: string }): HistoryPage {
    const messages = this.#sessions.get(sessionId)?.messages ?? [];
    const end = before === undefined ? messages.length : messages.findIndex((m) => m.id === before);
    if (end < 0) return { messages: [], hasMore: false };
    const start = Math.max(0, end - limit);
    return { messages: messages.slice(start, end), hasMore: start > 0 };
  }

  grantedTools(sessionId: string): string[] {
    return [...(this.#sessions.get(sessionId)?.grants ?? [])];
  }

  grantTool(sessionId: string, toolName: string): void {
    const session = this.#session(sessionId);
    (session.grants ??= new Set()).add(toolName);
  }

  recoverInterruptedTurns(): number {
    let count = 0;
    for (const session of this.#sessions.values()) {
      if (session.runningSince === undefined) continue;
      session.messages.push(interruptedTurnMessage(`msg_${randomUUID()}`, session.runningSince));
      delete session.runningSince;
      count++;
    }
    return count;
  }

  close(): void {}

  #session(sessionId: string) {
    const session = this.#sessions.get(sessionId);
    if (!session) throw new Error(`unknown session ${sessionId}`);
    return session;
  }
}
