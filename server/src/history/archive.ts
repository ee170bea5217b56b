/**
 * The owner's view of the history (the console, admin/): every visitor's conversations,
 * searched by their words, read whole, exported a day range at a time, and erased by
 * visitor or by age. The built-in stores each have one (`archiveOf`); a store of your
 * own may offer one too, else the console says the history cannot be browsed.
 *
 * Searching is the database's full-text index (SQLite FTS5, PostgreSQL `tsvector`), never
 * a scan in JavaScript; an export is read in pages, so a month of it never sits in memory.
 */
import type { ChatMessage, Handoff } from '@aalis/protocol';
import { textOf } from './store.js';

/** The most conversations one listing returns. */
export const MAX_LISTING = 100;
/** How many rows an export or the stats read from the database at a time. */
export const ARCHIVE_PAGE = 500;

/** Where a listing goes on: after the conversation last active at `lastAt` with this id. */
export interface ListingCursor {
  lastAt: number;
  sessionId: string;
}

export interface ConversationQuery {
  /** Words the conversation's messages hold (all of them, in any message). */
  q?: string;
  /** Only conversations with an answer rated so: `down` if any is, `up` if one is and none is `down`. */
  rating?: 'up' | 'down';
  /** Only conversations whose handoff to a person is in this state. */
  handoff?: Handoff['state'];
  /** At most this many (1 to MAX_LISTING). */
  limit: number;
  cursor?: ListingCursor;
}

/** A conversation as the console's list shows it. */
export interface ConversationListing {
  sessionId: string;
  /** Its owner (`user:<sub>` or `anon:<id>`), null for a session from before owners. */
  visitorId: string | null;
  startedAt: number;
  /** When its last message was written. */
  lastAt: number;
  messageCount: number;
  /** `down` when any answer was rated down, else `up` when any was rated up. */
  rating?: 'up' | 'down';
  /** Its handoff to a person, while one is asked for or answers. */
  handoff?: Handoff['state'];
}

export interface ConversationListingPage {
  /** Most recently active first. */
  conversations: ConversationListing[];
  /** Where the next page starts, when there may be one. */
  next?: ListingCursor;
}

/** A conversation read whole, oldest message first. */
export interface ArchivedConversation {
  sessionId: string;
  visitorId: string | null;
  startedAt: number;
  messages: ChatMessage[];
}

/** A stored message with its conversation: what an export and the day stats read. */
export interface ArchivedMessage {
  sessionId: string;
  visitorId: string | null;
  message: ChatMessage;
}

/**
 * What a stored answer does not hold of its turn: how long the model took to send its
 * first chunk, and which model it was (for the stats' latency and cost). Erased with its
 * conversation.
 */
export interface TurnTiming {
  sessionId: string;
  /** The answer's id. */
  messageId: string;
  /** When the turn ended. */
  at: number;
  firstTokenMs: number | null;
  model: string | null;
}

/** One message of an export. */
export interface TranscriptLine {
  sessionId: string;
  visitorId: string | null;
  messageId: string;
  role: ChatMessage['role'];
  createdAt: number;
  /** Its text parts, joined: what a person reads of it. */
  text: string;
}

/**
 * A conversation's handoff to a person (sessions/handoff-desk.ts): its state, and the
 * messages written outside any turn (a person's replies, the visitor's messages to them).
 * Both make the session, with its owner, when it has no message yet (a visitor may ask
 * for a person before asking anything).
 */
export interface HandoffStore {
  /** Undefined when the conversation has none (or does not exist). */
  handoff(sessionId: string): Promise<Handoff | undefined>;
  /** Keeps the state; null ends the handoff. */
  setHandoff(sessionId: string, handoff: Handoff | null, owner: string | null): Promise<void>;
  /** Stores a message outside any turn, after the session's others. */
  appendMessage(sessionId: string, message: ChatMessage, owner: string | null): Promise<void>;
}

export interface ConversationArchive extends HandoffStore {
  conversations(query: ConversationQuery): Promise<ConversationListingPage>;
  /** Undefined when there is no such conversation. */
  conversation(sessionId: string): Promise<ArchivedConversation | undefined>;
  /** Every message written in [from, to), oldest first, read a page at a time. */
  messages(from: number, to: number): AsyncIterable<ArchivedMessage>;
  /** Keeps a turn's timing (a second one for the same answer replaces it). */
  recordTurn(timing: TurnTiming): Promise<void>;
  /** The timings of the turns that ended in [from, to), in no particular order, a page at a time. */
  timings(from: number, to: number): AsyncIterable<TurnTiming>;
  /**
   * Erases every conversation `visitorId` owns, with its messages, feedback, grants, tool
   * records and images, even one with a turn running (whose answer then has nowhere to
   * be stored: the running mark is gone with it). Returns the sessions erased.
   */
  eraseVisitor(visitorId: string): Promise<string[]>;
  /**
   * Erases the conversations whose last message is older than `before` (and those with no
   * message made before it), except one with a turn running. Returns the sessions erased.
   */
  eraseIdle(before: number): Promise<string[]>;
}

/** The messages as an export's lines. */
export async function* transcriptOf(messages: AsyncIterable<ArchivedMessage>): AsyncIterable<TranscriptLine> {
  for await (const { sessionId, visitorId, message } of messages) {
    const { id: messageId, role, createdAt } = message;
    yield { sessionId, visitorId, messageId, role, createdAt, text: messageText(message) };
  }
}

/** The words of a message a person reads: its text parts, a line between them. */
export function messageText(message: Pick<ChatMessage, 'parts'>): string {
  return textOf(message.parts, 'text', '\n');
}

/** A verdict as the databases rank a conversation's answers: the highest wins, 0 for none. */
export const RATING_RANK = { up: 1, down: 2 } as const;

/** The verdict a rank stands for. */
export function ratingOfRank(rank: number): 'up' | 'down' | undefined {
  return rank === RATING_RANK.down ? 'down' : rank === RATING_RANK.up ? 'up' : undefined;
}

/**
 * A page of a listing read with one row more than `limit`: that row, when there, says a
 * next page exists, which starts after the page's last conversation.
 */
export function listingPage(listings: ConversationListing[], limit: number): ConversationListingPage {
  const conversations = listings.slice(0, limit);
  const last = conversations.at(-1);
  return listings.length > limit && last
    ? { conversations, next: { lastAt: last.lastAt, sessionId: last.sessionId } }
    : { conversations };
}

/** `down` over `up` over none: what the list shows of a conversation's verdicts. */
export function ratingOf(messages: readonly Pick<ChatMessage, 'feedback'>[]): 'up' | 'down' | undefined {
  let rating: 'up' | undefined;
  for (const message of messages) {
    if (message.feedback?.rating === 'down') return 'down';
    if (message.feedback?.rating === 'up') rating = 'up';
  }
  return rating;
}

/** Whether a listing of `query` may hold this conversation (the memory store's filter). */
export function isAfter(cursor: ListingCursor | undefined, listing: ListingCursor): boolean {
  if (!cursor) return true;
  return (
    listing.lastAt < cursor.lastAt ||
    (listing.lastAt === cursor.lastAt && listing.sessionId < cursor.sessionId)
  );
}

/**
 * The words of a search, each as a term a full-text index matches exactly: letters and
 * digits only (anything else separates words), at most 16 words of at most 64 characters.
 */
export function searchWords(q: string | undefined): string[] {
  if (!q) return [];
  return (
    q
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .slice(0, 16)
    .map((word) => word.slice(0, 64));
}
