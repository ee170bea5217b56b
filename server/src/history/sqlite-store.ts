/**
 * History in SQLite (node:sqlite) under a data directory, so a restart keeps every
 * chat. The work is synchronous inside (one process owns the file) and each turn
 * boundary is one transaction; the methods return promises only to share the interface
 * with stores that talk over a network (postgres-store.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, Feedback, ImageRef } from '@aalis/protocol';
import {
  interruptedTurnMessage,
  summaryOf,
  type FeedbackKept,
  type HistoryPage,
  type HistoryStore,
  type SessionRow,
  type SessionSummary,
  type StoredImage,
  type ToolExecutionStart,
} from './store.js';
import {
  addMissingColumn,
  firstColumn,
  inTransaction,
  openDatabase,
  type Database,
  type SQLInputValue,
} from './sqlite-database.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    owner TEXT
  );
  CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    id TEXT NOT NULL UNIQUE,
    body TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session_id, seq);
  CREATE TABLE IF NOT EXISTS running_turns (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id),
    started_at INTEGER NOT NULL,
    turn_id TEXT
  );
  CREATE TABLE IF NOT EXISTS tool_grants (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    tool TEXT NOT NULL,
    PRIMARY KEY (session_id, tool)
  );
  CREATE TABLE IF NOT EXISTS tool_executions (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome TEXT,
    PRIMARY KEY (session_id, turn_id, call_id)
  );
  -- No reference to sessions: an image is uploaded before the question that makes the session.
  CREATE TABLE IF NOT EXISTS images (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    data BLOB NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS images_by_session ON images (session_id);
`;

/** A running mark as stored: `turnId` is null in files from before marks carried one. */
interface RunningMark {
  sessionId: string;
  turnId: string | null;
  startedAt: number;
}

export class SqliteHistoryStore implements HistoryStore {
  readonly #db: Database;
  readonly #statements;
  #open = true;

  /** Opens (or creates) `aalis.sqlite` in `dataDir`, bringing an older file's tables up to date. */
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.#db = openDatabase(join(dataDir, 'aalis.sqlite'));
    this.#db.exec(SCHEMA);
    // Files from before sessions had owners, and before running marks named their turn.
    addMissingColumn(this.#db, 'sessions', 'owner', 'TEXT');
    addMissingColumn(this.#db, 'running_turns', 'turn_id', 'TEXT');
    // ...and before conversations had names and were listed by owner.
    addMissingColumn(this.#db, 'sessions', 'title', 'TEXT');
    this.#db.exec('CREATE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner)');
    const db = this.#db;
    this.#statements = {
      createSession: db.prepare('INSERT OR IGNORE INTO sessions (id, created_at, owner) VALUES (?, ?, ?)'),
      hasSession: db.prepare('SELECT 1 FROM sessions WHERE id = ?'),
      ownerOf: db.prepare('SELECT owner FROM sessions WHERE id = ?'),
      insertMessage: db.prepare('INSERT OR REPLACE INTO messages (session_id, id, body) VALUES (?, ?, ?)'),
      // Plain INSERT: a mark left by an answer that could not be stored must be resolved
      // (beginTurn does), never silently replaced.
      markRunning: db.prepare('INSERT INTO running_turns (session_id, turn_id, started_at) VALUES (?, ?, ?)'),
      runningSince: db.prepare('SELECT started_at FROM running_turns WHERE session_id = ?'),
      clearDangling: db.prepare('DELETE FROM running_turns WHERE session_id = ?'),
      // The fencing of endTurn: the mark goes only when it is the turn's own (a mark without
      // a turn id, from an older file, is anybody's), and `changes` says whether it went.
      clearRunning: db.prepare(
        `DELETE FROM running_turns
          WHERE session_id = @sessionId AND (@turnId IS NULL OR turn_id IS NULL OR turn_id = @turnId)`,
      ),
      // Recovery clears exactly the mark it saw (IS: a NULL turn id equals a NULL one).
      clearMark: db.prepare('DELETE FROM running_turns WHERE session_id = ? AND turn_id IS ?'),
      running: db.prepare(
        'SELECT session_id AS sessionId, turn_id AS turnId, started_at AS startedAt FROM running_turns',
      ),
      grants: db.prepare('SELECT tool FROM tool_grants WHERE session_id = ? ORDER BY tool'),
      grant: db.prepare('INSERT OR IGNORE INTO tool_grants (session_id, tool) VALUES (?, ?)'),
      // Most recently active first (the last message's seq); the first message is the first question.
      listSessions: db.prepare(
        `SELECT s.id AS id, s.title AS title, s.created_at AS createdAt,
                (SELECT body FROM messages WHERE session_id = s.id ORDER BY seq ASC LIMIT 1) AS first,
                (SELECT body FROM messages WHERE session_id = s.id ORDER BY seq DESC LIMIT 1) AS last
           FROM sessions s WHERE s.owner = ?
          ORDER BY (SELECT MAX(seq) FROM messages WHERE session_id = s.id) DESC, s.created_at DESC
          LIMIT ?`,
      ),
      renameSession: db.prepare('UPDATE sessions SET title = ? WHERE id = ? AND owner = ?'),
      deletable: db.prepare(
        `SELECT 1 FROM sessions WHERE id = ? AND owner = ?
              AND NOT EXISTS (SELECT 1 FROM running_turns WHERE session_id = sessions.id)`,
      ),
      deleteExecutions: db.prepare('DELETE FROM tool_executions WHERE session_id = ?'),
      deleteGrants: db.prepare('DELETE FROM tool_grants WHERE session_id = ?'),
      deleteMessages: db.prepare('DELETE FROM messages WHERE session_id = ?'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
      deleteImages: db.prepare('DELETE FROM images WHERE session_id = ?'),
      putImage: db.prepare(
        `INSERT INTO images (id, session_id, mime_type, width, height, bytes, data, created_at)
         VALUES (@id, @sessionId, @mimeType, @width, @height, @bytes, @data, @createdAt)`,
      ),
      getImage: db.prepare(
        `SELECT id, session_id AS sessionId, mime_type AS mimeType, width, height, bytes, data,
                created_at AS createdAt FROM images WHERE id = ?`,
      ),
      countImages: db.prepare('SELECT count(*) FROM images WHERE session_id = ?'),
      imageRefs: db.prepare(
        `SELECT id, mime_type AS mimeType, width, height, bytes FROM images
          WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))`,
      ),
      // A message names an image by its id (128 random bits): found in its stored body.
      dropOrphanImages: db.prepare(
        `DELETE FROM images WHERE created_at < ?
            AND NOT EXISTS (SELECT 1 FROM messages
                             WHERE messages.session_id = images.session_id AND instr(messages.body, images.id) > 0)`,
      ),
      // Reads only columns stored before the blob: no image's bytes are read.
      unsentImageBytes: db.prepare(
        `SELECT coalesce(sum(bytes), 0) FROM images
          WHERE NOT EXISTS (SELECT 1 FROM messages
                             WHERE messages.session_id = images.session_id AND instr(messages.body, images.id) > 0)`,
      ),
      // In the stored body: only an answer of that session (the verdict before is read first).
      feedbackOf: db.prepare(
        `SELECT json_extract(body, '$.feedback') AS feedback FROM messages
          WHERE session_id = ? AND id = ? AND json_extract(body, '$.role') = 'assistant'`,
      ),
      setFeedback: db.prepare(
        `UPDATE messages SET body = json_set(body, '$.feedback', json(?)) WHERE session_id = ? AND id = ?`,
      ),
      toolStarting: db.prepare(
        // Only while the turn is the one marked running: a turn another instance ended
        // (fencing) runs no more tools.
        `INSERT OR IGNORE INTO tool_executions (session_id, turn_id, call_id, name, started_at)
         SELECT @sessionId, @turnId, @callId, @name, @at
          WHERE EXISTS (SELECT 1 FROM running_turns
                         WHERE session_id = @sessionId AND (turn_id = @turnId OR turn_id IS NULL))`,
      ),
      // The first ending recorded is the one that happened: a later report changes nothing.
      toolEnded: db.prepare(
        `UPDATE tool_executions SET ended_at = ?, outcome = ?
          WHERE session_id = ? AND turn_id = ? AND call_id = ? AND ended_at IS NULL`,
      ),
      unfinishedTools: db.prepare(
        `SELECT call_id FROM tool_executions
            WHERE session_id = ? AND turn_id = ? AND ended_at IS NULL
            ORDER BY started_at, call_id`,
      ),
      latest: db.prepare('SELECT body FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?'),
      seqOf: db.prepare('SELECT seq FROM messages WHERE session_id = ? AND id = ?'),
      before: db.prepare(
        'SELECT body FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      ),
    };
  }

  /**
   * The open database, for tables of other concerns kept in the same file (the budgets'
   * counters: budgets/sqlite-budget-store.ts). Closed by `close()`.
   */
  get database(): Database {
    return this.#db;
  }

  async hasSession(sessionId: string): Promise<boolean> {
    return this.#statements.hasSession.get(sessionId) !== undefined;
  }

  async ownerOf(sessionId: string): Promise<string | null | undefined> {
    const row = this.#statements.ownerOf.get(sessionId) as { owner: string | null } | undefined;
    return row === undefined ? undefined : row.owner;
  }

  async beginTurn(
    sessionId: string,
    userMessage: ChatMessage,
    now: number,
    owner: string | null = null,
  ): Promise<void> {
    inTransaction(this.#db, () => {
      this.#statements.createSession.run(sessionId, now, owner);
      const dangling = firstColumn<number>(this.#statements.runningSince.get(sessionId));
      if (dangling !== undefined) {
        this.#statements.clearDangling.run(sessionId);
        this.#insertMessage(sessionId, interruptedTurnMessage(`msg_${randomUUID()}`, dangling, 'unsaved'));
      }
      this.#insertMessage(sessionId, userMessage);
      this.#statements.markRunning.run(sessionId, userMessage.id, now);
    });
  }

  async endTurn(sessionId: string, assistantMessage: ChatMessage, turnId?: string): Promise<boolean> {
    return inTransaction(this.#db, () => {
      const { changes } = this.#statements.clearRunning.run({ sessionId, turnId: turnId ?? null });
      if (changes === 0) return false;
      this.#insertMessage(sessionId, assistantMessage);
      return true;
    });
  }

  async page(sessionId: string, { limit, before }: { limit: number; before?: string }): Promise<HistoryPage> {
    let rows: string[];
    if (before === undefined) {
      rows = this.#statements.latest.all(sessionId, limit + 1).map((row) => row.body as string);
    } else {
      const seq = firstColumn<number>(this.#statements.seqOf.get(sessionId, before));
      if (seq === undefined) return { messages: [], hasMore: false };
      rows = this.#statements.before.all(sessionId, seq, limit + 1).map((row) => row.body as string);
    }
    const hasMore = rows.length > limit;
    const messages = rows
      .slice(0, limit)
      .reverse()
      .map((body) => JSON.parse(body) as ChatMessage);
    return { messages, hasMore };
  }

  async grantedTools(sessionId: string): Promise<string[]> {
    return this.#statements.grants.all(sessionId).map((row) => row.tool as string);
  }

  async grantTool(sessionId: string, toolName: string): Promise<void> {
    this.#statements.grant.run(sessionId, toolName);
  }

  async listSessions(owner: string, limit: number): Promise<SessionSummary[]> {
    const rows = this.#statements.listSessions.all(owner, limit) as unknown as SessionRow[];
    return rows.map(summaryOf);
  }

  async renameSession(owner: string, sessionId: string, title: string): Promise<boolean> {
    return this.#statements.renameSession.run(title, sessionId, owner).changes === 1;
  }

  async deleteSession(owner: string, sessionId: string): Promise<boolean> {
    const statements = this.#statements;
    return inTransaction(this.#db, () => {
      if (!statements.deletable.get(sessionId, owner)) return false;
      for (const table of [
        'deleteExecutions',
        'deleteGrants',
        'deleteMessages',
        'deleteImages',
        'deleteSession',
      ] as const)
        statements[table].run(sessionId);
      return true;
    });
  }

  async putImage(image: StoredImage): Promise<void> {
    this.#statements.putImage.run({ ...image } as unknown as Record<string, SQLInputValue>);
  }

  async getImage(id: string): Promise<StoredImage | undefined> {
    const row = this.#statements.getImage.get(id) as unknown as StoredImage | undefined;
    // node:sqlite gives a BLOB as a plain Uint8Array; the rest of the server reads a Buffer.
    return row && { ...row, data: Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength) };
  }

  async imageRefs(sessionId: string, ids: readonly string[]): Promise<ImageRef[]> {
    return this.#statements.imageRefs
      .all(sessionId, JSON.stringify(ids))
      .map((row) => ({ ...row }) as ImageRef);
  }

  async countImages(sessionId: string): Promise<number> {
    return firstColumn<number>(this.#statements.countImages.get(sessionId)) ?? 0;
  }

  async dropOrphanImages(before: number): Promise<number> {
    return Number(this.#statements.dropOrphanImages.run(before).changes);
  }

  async unsentImageBytes(): Promise<number> {
    return Number(firstColumn<number>(this.#statements.unsentImageBytes.get()) ?? 0);
  }

  async setFeedback(sessionId: string, messageId: string, feedback: Feedback): Promise<FeedbackKept | false> {
    const statements = this.#statements;
    return inTransaction(this.#db, (): FeedbackKept | false => {
      const row = statements.feedbackOf.get(sessionId, messageId) as { feedback: string | null } | undefined;
      if (!row) return false;
      statements.setFeedback.run(JSON.stringify(feedback), sessionId, messageId);
      return { before: row.feedback === null ? undefined : (JSON.parse(row.feedback) as Feedback) };
    });
  }

  async toolStarting(execution: ToolExecutionStart): Promise<boolean> {
    return this.#statements.toolStarting.run({ ...execution }).changes === 1;
  }

  async toolEnded(
    sessionId: string,
    turnId: string,
    callId: string,
    outcome: 'done' | 'error',
    at: number,
  ): Promise<void> {
    this.#statements.toolEnded.run(at, outcome, sessionId, turnId, callId);
  }

  async unfinishedTools(sessionId: string, turnId: string): Promise<string[]> {
    return this.#statements.unfinishedTools.all(sessionId, turnId).map((row) => row.call_id as string);
  }

  async recoverInterruptedTurns(stillRunning?: (sessionId: string) => Promise<boolean>): Promise<number> {
    const marks = this.#statements.running.all() as unknown as RunningMark[];
    let count = 0;
    for (const { sessionId, turnId, startedAt } of marks) {
      if (stillRunning && (await stillRunning(sessionId))) continue;
      // The wait above let other calls run: only the very mark seen is resolved, so a turn
      // that ended (or a newer one that began) in the meantime is left as it is.
      const resolved = inTransaction(this.#db, () => {
        if (this.#statements.clearMark.run(sessionId, turnId).changes === 0) return false;
        this.#insertMessage(sessionId, interruptedTurnMessage(`msg_${randomUUID()}`, startedAt));
        return true;
      });
      if (resolved) count++;
    }
    return count;
  }

  async close(): Promise<void> {
    if (this.#open) this.#db.close();
    this.#open = false;
  }

  #insertMessage(sessionId: string, message: ChatMessage): void {
    this.#statements.insertMessage.run(sessionId, message.id, JSON.stringify(message));
  }
}
