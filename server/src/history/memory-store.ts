/**
 * History in memory: for tests, and for servers started without a data directory. Every
 * method does its work synchronously before its promise settles, so each one is a single
 * step no other call can interleave with, as a database transaction would be.
 */
import { randomUUID } from 'node:crypto';
import type { ChatMessage, Feedback, Handoff, ImageRef } from '@aalis/protocol';
import {
  interruptedTurnMessage,
  titleFrom,
  type FeedbackKept,
  type HistoryPage,
  type HistoryStore,
  type SessionSummary,
  type StoredImage,
  type ToolExecutionStart,
} from './store.js';
import {
  isAfter,
  listingPage,
  messageText,
  ratingOf,
  searchWords,
  type ArchivedConversation,
  type ConversationArchive,
  type ConversationListing,
  type ConversationListingPage,
  type ConversationQuery,
  type ArchivedMessage,
  type TurnTiming,
} from './archive.js';

interface StoredSession {
  messages: ChatMessage[];
  createdAt?: number;
  title?: string;
  /** When a message was last added, in the order of all additions (the SQL stores' seq). */
  touched?: number;
  owner: string | null;
  /** The turn marked as running, under its user message's id. */
  running?: { turnId: string; since: number };
  grants: Set<string>;
  /** Keyed by `executionKey(turnId, callId)`, in the order the calls started. */
  tools: Map<string, { turnId: string; callId: string; startedAt: number; ended: boolean }>;
  /** The turns' timings, by answer id (archive.ts). */
  timings: Map<string, TurnTiming>;
  handoff?: Handoff;
}

/**
 * Its archive (archive.ts) searches by scanning: the memory history is for tests and
 * short-lived servers, never a site's years of conversations.
 */
export class MemoryHistoryStore implements HistoryStore, ConversationArchive {
  readonly #sessions = new Map<string, StoredSession>();
  readonly #images = new Map<string, StoredImage>();
  #additions = 0;

  async putImage(image: StoredImage): Promise<void> {
    this.#images.set(image.id, { ...image });
  }

  async getImage(id: string): Promise<StoredImage | undefined> {
    const image = this.#images.get(id);
    return image && { ...image };
  }

  async imageRefs(sessionId: string, ids: readonly string[]): Promise<ImageRef[]> {
    return ids.flatMap((id) => {
      const image = this.#images.get(id);
      if (image?.sessionId !== sessionId) return [];
      const { mimeType, width, height, bytes } = image;
      return [{ id, mimeType, width, height, bytes }];
    });
  }

  async countImages(sessionId: string): Promise<number> {
    let count = 0;
    for (const image of this.#images.values()) if (image.sessionId === sessionId) count++;
    return count;
  }

  async dropOrphanImages(before: number): Promise<number> {
    let dropped = 0;
    for (const [id, image] of this.#images) {
      if (image.createdAt < before && !this.#named(image)) {
        this.#images.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  async unsentImageBytes(): Promise<number> {
    let bytes = 0;
    for (const image of this.#images.values()) if (!this.#named(image)) bytes += image.bytes;
    return bytes;
  }

  /** Whether a message of the image's session names it. */
  #named(image: StoredImage): boolean {
    return (
      this.#sessions
        .get(image.sessionId)
        ?.messages.some((message) => message.images?.some((ref) => ref.id === image.id)) ?? false
    );
  }

  async hasSession(sessionId: string): Promise<boolean> {
    return this.#sessions.has(sessionId);
  }

  async ownerOf(sessionId: string): Promise<string | null | undefined> {
    return this.#sessions.get(sessionId)?.owner;
  }

  async beginTurn(
    sessionId: string,
    userMessage: ChatMessage,
    now: number,
    owner: string | null = null,
  ): Promise<void> {
    const session = this.#made(sessionId, owner, now);
    // A mark still here means the previous answer could not be stored: resolve it first.
    if (session.running)
      session.messages.push(interruptedTurnMessage(`msg_${randomUUID()}`, session.running.since, 'unsaved'));
    session.messages.push(userMessage);
    session.touched = ++this.#additions;
    session.running = { turnId: userMessage.id, since: now };
  }

  async endTurn(sessionId: string, assistantMessage: ChatMessage, turnId?: string): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (!session?.running) return false;
    if (turnId !== undefined && session.running.turnId !== turnId) return false;
    session.messages.push(assistantMessage);
    session.touched = ++this.#additions;
    delete session.running;
    return true;
  }

  async page(sessionId: string, { limit, before }: { limit: number; before?: string }): Promise<HistoryPage> {
    const messages = this.#sessions.get(sessionId)?.messages ?? [];
    const end = before === undefined ? messages.length : messages.findIndex((m) => m.id === before);
    if (end < 0) return { messages: [], hasMore: false };
    const start = Math.max(0, end - limit);
    return { messages: messages.slice(start, end), hasMore: start > 0 };
  }

  async grantedTools(sessionId: string): Promise<string[]> {
    // Sorted, as the databases return them.
    return [...(this.#sessions.get(sessionId)?.grants ?? [])].sort();
  }

  async listSessions(owner: string, limit: number): Promise<SessionSummary[]> {
    return [...this.#sessions]
      .filter(([, session]) => session.owner === owner)
      .sort(([, a], [, b]) => (b.touched ?? 0) - (a.touched ?? 0))
      .slice(0, limit)
      .map(([id, session]) => ({
        id,
        title: session.title ?? titleFrom(session.messages.find((m) => m.role === 'user')),
        lastActivity: session.messages.at(-1)?.createdAt ?? session.createdAt ?? 0,
      }));
  }

  async renameSession(owner: string, sessionId: string, title: string): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (session?.owner !== owner) return false;
    session.title = title;
    return true;
  }

  async deleteSession(owner: string, sessionId: string): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (session?.owner !== owner || session.running) return false;
    for (const [id, image] of this.#images) if (image.sessionId === sessionId) this.#images.delete(id);
    return this.#sessions.delete(sessionId);
  }

  async setFeedback(sessionId: string, messageId: string, feedback: Feedback): Promise<FeedbackKept | false> {
    const messages = this.#sessions.get(sessionId)?.messages ?? [];
    const at = messages.findIndex((m) => m.id === messageId && m.role === 'assistant');
    if (at < 0) return false;
    const before = messages[at]!.feedback;
    messages[at] = { ...messages[at]!, feedback };
    return { before };
  }

  async grantTool(sessionId: string, toolName: string): Promise<void> {
    this.#session(sessionId).grants.add(toolName);
  }

  async toolStarting({ sessionId, turnId, callId, at }: ToolExecutionStart): Promise<boolean> {
    const { tools, running } = this.#session(sessionId);
    const key = executionKey(turnId, callId);
    // Only while the turn is the one marked running (fencing), and once.
    if (running?.turnId !== turnId || tools.has(key)) return false;
    tools.set(key, { turnId, callId, startedAt: at, ended: false });
    return true;
  }

  async toolEnded(sessionId: string, turnId: string, callId: string): Promise<void> {
    const execution = this.#sessions.get(sessionId)?.tools.get(executionKey(turnId, callId));
    if (execution) execution.ended = true;
  }

  async unfinishedTools(sessionId: string, turnId: string): Promise<string[]> {
    const tools = [...(this.#sessions.get(sessionId)?.tools.values() ?? [])];
    return tools
      .filter((tool) => tool.turnId === turnId && !tool.ended)
      .sort((a, b) => a.startedAt - b.startedAt || compareText(a.callId, b.callId))
      .map((tool) => tool.callId);
  }

  async recoverInterruptedTurns(stillRunning?: (sessionId: string) => Promise<boolean>): Promise<number> {
    let count = 0;
    for (const [sessionId, session] of [...this.#sessions]) {
      const running = session.running;
      if (!running || (stillRunning && (await stillRunning(sessionId)))) continue;
      // The wait above let other calls run: only the very turn seen is resolved.
      if (session.running !== running) continue;
      session.messages.push(interruptedTurnMessage(`msg_${randomUUID()}`, running.since));
      session.touched = ++this.#additions;
      delete session.running;
      count++;
    }
    return count;
  }

  async conversations(query: ConversationQuery): Promise<ConversationListingPage> {
    const words = searchWords(query.q);
    const found: ConversationListing[] = [];
    for (const [sessionId, session] of this.#sessions) {
      const listing = listingOf(sessionId, session);
      if (!isAfter(query.cursor, listing)) continue;
      if (query.rating && listing.rating !== query.rating) continue;
      if (query.handoff && listing.handoff !== query.handoff) continue;
      if (words.length && !session.messages.some((message) => holdsWords(message, words))) continue;
      found.push(listing);
    }
    found.sort((a, b) => b.lastAt - a.lastAt || compareText(b.sessionId, a.sessionId));
    return listingPage(found, query.limit);
  }

  async conversation(sessionId: string): Promise<ArchivedConversation | undefined> {
    const session = this.#sessions.get(sessionId);
    if (!session) return undefined;
    const { owner: visitorId, createdAt: startedAt = 0, messages } = session;
    return { sessionId, visitorId, startedAt, messages: messages.map((m) => structuredClone(m)) };
  }

  async *messages(from: number, to: number): AsyncIterable<ArchivedMessage> {
    const found: Array<ArchivedMessage & { order: number }> = [];
    for (const [sessionId, session] of this.#sessions)
      session.messages.forEach((message, order) => {
        if (message.createdAt >= from && message.createdAt < to)
          found.push({ sessionId, visitorId: session.owner, message: structuredClone(message), order });
      });
    found.sort((a, b) => a.message.createdAt - b.message.createdAt || a.order - b.order);
    for (const { order: _order, ...archived } of found) yield archived;
  }

  async recordTurn(timing: TurnTiming): Promise<void> {
    const session = this.#sessions.get(timing.sessionId);
    // Only for an answer stored: one erased (or never stored) leaves no timing behind.
    if (session?.messages.some((m) => m.id === timing.messageId))
      session.timings.set(timing.messageId, { ...timing });
  }

  async *timings(from: number, to: number): AsyncIterable<TurnTiming> {
    for (const session of [...this.#sessions.values()])
      for (const timing of session.timings.values())
        if (timing.at >= from && timing.at < to) yield { ...timing };
  }

  async handoff(sessionId: string): Promise<Handoff | undefined> {
    const handoff = this.#sessions.get(sessionId)?.handoff;
    return handoff && { ...handoff };
  }

  async setHandoff(sessionId: string, handoff: Handoff | null, owner: string | null): Promise<void> {
    const session = this.#made(sessionId, owner, handoff?.since ?? Date.now());
    if (handoff) session.handoff = { ...handoff };
    else delete session.handoff;
  }

  async appendMessage(sessionId: string, message: ChatMessage, owner: string | null): Promise<void> {
    const session = this.#made(sessionId, owner, message.createdAt);
    session.messages.push(structuredClone(message));
    session.touched = ++this.#additions;
  }

  /** The session, made with its owner when it is not there yet. */
  #made(sessionId: string, owner: string | null, now: number): StoredSession {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = {
        messages: [],
        createdAt: now,
        owner,
        grants: new Set(),
        tools: new Map(),
        timings: new Map(),
      };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  async eraseVisitor(visitorId: string): Promise<string[]> {
    return this.#erase((session) => session.owner === visitorId);
  }

  async eraseIdle(before: number): Promise<string[]> {
    return this.#erase(
      (session) =>
        !session.running && (session.messages.at(-1)?.createdAt ?? session.createdAt ?? 0) < before,
    );
  }

  #erase(erased: (session: StoredSession) => boolean): string[] {
    const ids = [...this.#sessions].filter(([, session]) => erased(session)).map(([id]) => id);
    for (const id of ids) this.#sessions.delete(id);
    for (const [id, image] of this.#images) if (ids.includes(image.sessionId)) this.#images.delete(id);
    return ids;
  }

  async close(): Promise<void> {}

  #session(sessionId: string): StoredSession {
    const session = this.#sessions.get(sessionId);
    if (!session) throw new Error(`unknown session ${sessionId}`);
    return session;
  }
}

function listingOf(sessionId: string, session: StoredSession): ConversationListing {
  const rating = ratingOf(session.messages);
  const startedAt = session.createdAt ?? 0;
  return {
    sessionId,
    visitorId: session.owner,
    startedAt,
    lastAt: session.messages.at(-1)?.createdAt ?? startedAt,
    messageCount: session.messages.length,
    ...(rating ? { rating } : {}),
    ...(session.handoff ? { handoff: session.handoff.state } : {}),
  };
}

/** Whether every word starts a word of the message's text, as the databases' indexes match. */
function holdsWords(message: ChatMessage, words: string[]): boolean {
  const own = new Set(searchWords(messageText(message)));
  return words.every((word) => [...own].some((mine) => mine.startsWith(word)));
}

function executionKey(turnId: string, callId: string): string {
  return JSON.stringify([turnId, callId]);
}

/** Code-unit order, as the databases' C collation and `ORDER BY` on text compare. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
