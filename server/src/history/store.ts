/**
 * Where finished messages live. A turn is bracketed: `beginTurn` stores the user
 * message (and the session, with its first message) and marks the turn as running,
 * `endTurn` stores the assistant's final message and clears the mark, each in one step.
 * A crash in between leaves the mark, and `recoverInterruptedTurns` at the next start
 * turns it into an assistant message with status `error`. So does the next `beginTurn`
 * of that session, when an answer could not be stored (a full disk) and the server ran
 * on: the mark is never overwritten, and the history never holds a question nobody
 * answered.
 */
import { ErrorCode, type ChatMessage, type Feedback, type ImageRef, type Part } from '@aalis/protocol';

export interface HistoryPage {
  /** Oldest first. */
  messages: ChatMessage[];
  /** True when older messages exist. */
  hasMore: boolean;
}

export interface HistoryStore {
  /** True once the session's first message was stored. */
  hasSession(sessionId: string): Promise<boolean>;
  /**
   * The stored session's owner: the signed visitor it belongs to, null when it has none,
   * undefined when there is no such session. One lookup either way (hello asks it for
   * every id, so that another visitor's id and an unknown one cost the same).
   */
  ownerOf(sessionId: string): Promise<string | null | undefined>;
  /**
   * Stores the user message (and the session, with its owner, the first time) and marks
   * the turn as running under the user message's id (its turn id); all or nothing. A
   * session's owner never changes.
   */
  beginTurn(sessionId: string, userMessage: ChatMessage, now: number, owner?: string | null): Promise<void>;
  /**
   * Stores the assistant's final message and clears the running mark, in one step, when
   * the turn `turnId` (its user message's id) is the one marked running; without
   * `turnId`, whichever turn is. Returns false, storing nothing, when no such turn is
   * marked: another instance already ended it (the lease's fencing, cluster/), so a
   * stale owner can never write a second answer.
   */
  endTurn(sessionId: string, assistantMessage: ChatMessage, turnId?: string): Promise<boolean>;
  /** The last `limit` messages, or the last `limit` before the message with id `before`. */
  page(sessionId: string, options: { limit: number; before?: string }): Promise<HistoryPage>;
  /**
   * The tools the user allowed for the rest of this conversation ("Allow for this
   * conversation"): kept with it, so the server, never the page, enforces the grant.
   */
  grantedTools(sessionId: string): Promise<string[]>;
  /** Keeps a grant; the session exists (a turn asked for it). */
  grantTool(sessionId: string, toolName: string): Promise<void>;
  /**
   * Keeps a visitor's verdict with the answer `messageId` of the session, replacing the
   * one before, which it returns (`before`, undefined for none); false, keeping nothing,
   * when the session has no such answer.
   */
  setFeedback(sessionId: string, messageId: string, feedback: Feedback): Promise<FeedbackKept | false>;
  /** The sessions `owner` owns, most recently active first: a visitor's conversation list. */
  listSessions(owner: string, limit: number): Promise<SessionSummary[]>;
  /** Names a session `owner` owns; false, changing nothing, when it owns no such session. */
  renameSession(owner: string, sessionId: string, title: string): Promise<boolean>;
  /**
   * Deletes a session `owner` owns, with everything kept of it (its images too); false, deleting nothing,
   * when it owns no such session or a turn of it is marked running.
   */
  deleteSession(owner: string, sessionId: string): Promise<boolean>;
  /**
   * Keeps an image a visitor uploaded for a session, which may have no message yet (the
   * image is uploaded before the question that names it).
   */
  putImage(image: StoredImage): Promise<void>;
  /** An uploaded image, with its bytes; undefined when there is none with that id. */
  getImage(id: string): Promise<StoredImage | undefined>;
  /**
   * What a message shows of the images with these ids that the session uploaded (not
   * their bytes), in no particular order; an id that is not one of them is left out.
   */
  imageRefs(sessionId: string, ids: readonly string[]): Promise<ImageRef[]>;
  /** How many images a session has had uploaded (its limit counts them). */
  countImages(sessionId: string): Promise<number>;
  /**
   * Deletes the images uploaded before `before` that no message of their session names (a
   * question never sent, an image removed, a tab closed); returns how many went. The
   * others go with their session (`deleteSession`).
   */
  dropOrphanImages(before: number): Promise<number>;
  /**
   * The bytes of every image that no message of its session names yet (uploaded, not
   * sent): what the cap on unsent uploads holds against (transport/image-routes.ts).
   */
  unsentImageBytes(): Promise<number>;
  /**
   * Records that a tool call is about to run, before it runs. False when the call was
   * recorded before (it ran, or may have run, already), or when its turn is no longer
   * the one marked running (another instance ended it): either way it must not run.
   */
  toolStarting(execution: ToolExecutionStart): Promise<boolean>;
  /** Records how a recorded call ended. */
  toolEnded(
    sessionId: string,
    turnId: string,
    callId: string,
    outcome: 'done' | 'error',
    at: number,
  ): Promise<void>;
  /** The calls of a turn that were recorded as starting and never as ended: they may have completed. */
  unfinishedTools(sessionId: string, turnId: string): Promise<string[]>;
  /**
   * Marks turns a crash left running as failed; returns how many there were. With
   * `stillRunning`, a turn it says runs on (on another instance, cluster/) is left alone.
   */
  recoverInterruptedTurns(stillRunning?: (sessionId: string) => Promise<boolean>): Promise<number>;
  close(): Promise<void>;
}

/** An uploaded image as the history keeps it: what a message shows of it, and its bytes. */
export interface StoredImage extends ImageRef {
  sessionId: string;
  data: Buffer;
  createdAt: number;
}

/** A verdict kept, and the one it replaced: a comment on the same rating is no new verdict. */
export interface FeedbackKept {
  before: Feedback | undefined;
}

/** A session as a conversation list shows it. */
export interface SessionSummary {
  id: string;
  /** The name the visitor gave it, else the start of its first question. */
  title: string;
  /** When its last message was written (or it was made, with none). */
  lastActivity: number;
}

/** Longest title derived from a first question. */
export const TITLE_CHARS = 80;

/**
 * The text (or the reasoning) of a message's parts, joined (by `separator`: an export puts
 * a line between the texts a tool call split).
 */
export const textOf = (parts: readonly Part[], type: 'text' | 'reasoning', separator = ''): string =>
  parts.flatMap((p) => (p.type === type && p.text ? [p.text] : [])).join(separator);

/** The title a session without a name of its own gets: its first question's start, on one line. */
export function titleFrom(firstQuestion: ChatMessage | undefined): string {
  const text = textOf(firstQuestion?.parts ?? [], 'text')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
}

/** A tool call about to run, as the history records it (tools run at most once). */
export interface ToolExecutionStart {
  sessionId: string;
  /** The turn's id: its user message's id. */
  turnId: string;
  callId: string;
  name: string;
  at: number;
}

/** Why a turn left marked as running has no answer: found at a start, or at the session's next turn. */
const UNANSWERED = {
  /** At a start: the server stopped (a crash) before the answer was stored. */
  crash: { code: ErrorCode.Interrupted, message: 'the server stopped before this answer was finished' },
  /** At the next turn: the server ran on, so it was the answer's storing that failed. */
  unsaved: { code: ErrorCode.Storage, message: 'this answer could not be saved' },
} as const;

/** The assistant message that stands for a turn whose answer was never stored. */
export function interruptedTurnMessage(
  id: string,
  startedAt: number,
  why: keyof typeof UNANSWERED = 'crash',
): ChatMessage {
  return {
    id,
    role: 'assistant',
    parts: [],
    createdAt: startedAt,
    status: 'error',
    error: { ...UNANSWERED[why] },
  };
}

/** A session as the list query gives it: its first and last messages as stored. */
export interface SessionRow {
  id: string;
  title: string | null;
  createdAt: number | string;
  first: string | null;
  last: string | null;
}

/** The list's entry for a row: its name, else its first question's start; its last message's time. */
export function summaryOf(row: SessionRow): SessionSummary {
  const first = row.first ? (JSON.parse(row.first) as ChatMessage) : undefined;
  const last = row.last ? (JSON.parse(row.last) as ChatMessage) : undefined;
  return {
    id: row.id,
    title: row.title ?? titleFrom(first?.role === 'user' ? first : undefined),
    lastActivity: last?.createdAt ?? Number(row.createdAt),
  };
}
