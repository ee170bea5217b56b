/**
 * The SQLite history's archive (archive.ts): the console's listing, search, export and
 * erasure over the history's own file. Search is an FTS5 index of every message's text,
 * kept by triggers on `messages`, so the history's own writes stay as they are; each
 * session's last activity (`sessions.last_at`) is kept the same way, for a listing
 * ordered by it without reading every message.
 */
import type { ChatMessage, Handoff } from '@aalis/protocol';
import {
  listingPage,
  RATING_RANK,
  ratingOfRank,
  searchWords,
  ARCHIVE_PAGE,
  type ArchivedConversation,
  type ConversationArchive,
  type ConversationListing,
  type ConversationListingPage,
  type ConversationQuery,
  type ArchivedMessage,
  type TurnTiming,
} from './archive.js';
import { addMissingColumn, inTransaction, type Database } from './sqlite-database.js';

/** The words of a message body's text parts, in SQL: what the index holds of it. */
const WORDS_OF = (body: string) => `(SELECT group_concat(json_extract(value, '$.text'), ' ')
  FROM json_each(${body}, '$.parts') WHERE json_extract(value, '$.type') = 'text')`;

/** When a stored message was written (its body's `createdAt`). */
const CREATED_AT = (body: string) => `json_extract(${body}, '$.createdAt')`;

/** 2 when any answer of the session was rated down, 1 when one was rated up, else 0. */
const RATING = `(SELECT coalesce(max(CASE json_extract(m.body, '$.feedback.rating')
  WHEN 'down' THEN 2 WHEN 'up' THEN 1 ELSE 0 END), 0) FROM messages m WHERE m.session_id = s.id)`;

/**
 * Contentless (the text is in `messages` already) with deletes, its rowid the message's
 * `seq`. unicode61 without diacritics: "cafe" finds "café".
 */
const SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS message_words USING fts5(
    words, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER IF NOT EXISTS message_words_added AFTER INSERT ON messages BEGIN
    INSERT INTO message_words (rowid, words) VALUES (new.seq, coalesce(${WORDS_OF('new.body')}, ''));
    UPDATE sessions SET last_at = max(coalesce(last_at, 0), ${CREATED_AT('new.body')}) WHERE id = new.session_id;
  END;
  CREATE TRIGGER IF NOT EXISTS message_words_changed AFTER UPDATE OF body ON messages BEGIN
    DELETE FROM message_words WHERE rowid = old.seq;
    INSERT INTO message_words (rowid, words) VALUES (new.seq, coalesce(${WORDS_OF('new.body')}, ''));
  END;
  CREATE TRIGGER IF NOT EXISTS message_words_removed AFTER DELETE ON messages BEGIN
    DELETE FROM message_words WHERE rowid = old.seq;
  END;
  CREATE INDEX IF NOT EXISTS sessions_by_activity ON sessions (last_at, id);
  CREATE TABLE IF NOT EXISTS turn_timings (
    message_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    first_token_ms INTEGER,
    model TEXT
  );
  CREATE INDEX IF NOT EXISTS turn_timings_by_time ON turn_timings (at, message_id);
  CREATE INDEX IF NOT EXISTS turn_timings_by_session ON turn_timings (session_id);
  CREATE INDEX IF NOT EXISTS messages_by_time ON messages (${CREATED_AT('body')}, seq);
`;

interface ListingRow {
  id: string;
  owner: string | null;
  createdAt: number;
  lastAt: number;
  messageCount: number;
  rating: number;
  handoff: Handoff['state'] | null;
}

export class SqliteArchive implements ConversationArchive {
  readonly #db: Database;
  /** Prepared once: it runs at the end of every turn. */
  readonly #recordTurn;

  /** Adds the index and the triggers to the file (once), filling them from what it holds. */
  constructor(db: Database) {
    this.#db = db;
    // A REPLACE that deletes a message row fires its delete trigger only so.
    db.exec('PRAGMA recursive_triggers = ON');
    inTransaction(db, () => {
      const fresh = !db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'message_words'`).get();
      addMissingColumn(db, 'sessions', 'last_at', 'INTEGER');
      // The handoff to a person, as JSON (a Handoff), NULL for none.
      addMissingColumn(db, 'sessions', 'handoff', 'TEXT');
      db.exec(SCHEMA);
      if (!fresh) return;
      db.exec(`INSERT INTO message_words (rowid, words)
                 SELECT seq, coalesce(${WORDS_OF('body')}, '') FROM messages`);
      db.exec(`UPDATE sessions SET last_at =
                 (SELECT max(${CREATED_AT('body')}) FROM messages WHERE session_id = sessions.id)`);
    });
    // Only for an answer stored: one erased (or never stored) leaves no timing behind.
    this.#recordTurn = db.prepare(
      `INSERT OR REPLACE INTO turn_timings (message_id, session_id, at, first_token_ms, model)
       SELECT @messageId, @sessionId, @at, @firstTokenMs, @model
        WHERE EXISTS (SELECT 1 FROM messages WHERE id = @messageId AND session_id = @sessionId)`,
    );
  }

  async conversations(query: ConversationQuery): Promise<ConversationListingPage> {
    const words = searchWords(query.q);
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (query.cursor) {
      where.push(
        '(coalesce(s.last_at, s.created_at) < ? OR (coalesce(s.last_at, s.created_at) = ? AND s.id < ?))',
      );
      params.push(query.cursor.lastAt, query.cursor.lastAt, query.cursor.sessionId);
    }
    if (words.length) {
      // Each word as a quoted prefix term: the words are letters and digits only.
      where.push(`s.id IN (SELECT m.session_id FROM message_words w JOIN messages m ON m.seq = w.rowid
                            WHERE message_words MATCH ?)`);
      params.push(words.map((word) => `"${word}"*`).join(' '));
    }
    if (query.rating) {
      where.push(`${RATING} = ?`);
      params.push(RATING_RANK[query.rating]);
    }
    if (query.handoff) {
      where.push(`json_extract(s.handoff, '$.state') = ?`);
      params.push(query.handoff);
    }
    const rows = this.#db
      .prepare(
        `SELECT s.id AS id, s.owner AS owner, s.created_at AS createdAt,
                coalesce(s.last_at, s.created_at) AS lastAt,
                (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS messageCount,
                ${RATING} AS rating, json_extract(s.handoff, '$.state') AS handoff
           FROM sessions s ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY coalesce(s.last_at, s.created_at) DESC, s.id DESC
          LIMIT ?`,
      )
      .all(...params, query.limit + 1) as unknown as ListingRow[];
    return listingPage(rows.map(listingOf), query.limit);
  }

  async conversation(sessionId: string): Promise<ArchivedConversation | undefined> {
    const session = this.#db
      .prepare('SELECT owner, created_at AS createdAt FROM sessions WHERE id = ?')
      .get(sessionId) as { owner: string | null; createdAt: number } | undefined;
    if (!session) return undefined;
    const bodies = this.#db
      .prepare('SELECT body FROM messages WHERE session_id = ? ORDER BY seq')
      .all(sessionId) as Array<{ body: string }>;
    return {
      sessionId,
      visitorId: session.owner,
      startedAt: Number(session.createdAt),
      messages: bodies.map((row) => JSON.parse(row.body) as ChatMessage),
    };
  }

  async *messages(from: number, to: number): AsyncIterable<ArchivedMessage> {
    const page = this.#db.prepare(
      `SELECT m.seq AS seq, m.session_id AS sessionId, s.owner AS owner, m.body AS body,
              ${CREATED_AT('m.body')} AS at
         FROM messages m JOIN sessions s ON s.id = m.session_id
        WHERE ${CREATED_AT('m.body')} >= ? AND ${CREATED_AT('m.body')} < ?
          AND (${CREATED_AT('m.body')} > ? OR (${CREATED_AT('m.body')} = ? AND m.seq > ?))
        ORDER BY ${CREATED_AT('m.body')}, m.seq
        LIMIT ${ARCHIVE_PAGE}`,
    );
    let after = { at: from - 1, seq: 0 };
    for (;;) {
      const rows = page.all(from, to, after.at, after.at, after.seq) as unknown as Array<{
        seq: number;
        sessionId: string;
        owner: string | null;
        body: string;
        at: number;
      }>;
      for (const row of rows)
        yield {
          sessionId: row.sessionId,
          visitorId: row.owner,
          message: JSON.parse(row.body) as ChatMessage,
        };
      const last = rows.at(-1);
      if (!last || rows.length < ARCHIVE_PAGE) return;
      after = { at: last.at, seq: last.seq };
    }
  }

  async recordTurn(timing: TurnTiming): Promise<void> {
    this.#recordTurn.run({ ...timing });
  }

  async *timings(from: number, to: number): AsyncIterable<TurnTiming> {
    const page = this.#db.prepare(
      `SELECT message_id AS messageId, session_id AS sessionId, at, first_token_ms AS firstTokenMs, model
         FROM turn_timings WHERE at >= ? AND at < ? AND (at > ? OR (at = ? AND message_id > ?))
        ORDER BY at, message_id LIMIT ${ARCHIVE_PAGE}`,
    );
    let after = { at: from - 1, id: '' };
    for (;;) {
      const rows = page.all(from, to, after.at, after.at, after.id) as unknown as TurnTiming[];
      yield* rows.map((row) => ({ ...row }));
      const last = rows.at(-1);
      if (!last || rows.length < ARCHIVE_PAGE) return;
      after = { at: last.at, id: last.messageId };
    }
  }

  async handoff(sessionId: string): Promise<Handoff | undefined> {
    const row = this.#db.prepare('SELECT handoff FROM sessions WHERE id = ?').get(sessionId) as
      { handoff: string | null } | undefined;
    return row?.handoff ? (JSON.parse(row.handoff) as Handoff) : undefined;
  }

  async setHandoff(sessionId: string, handoff: Handoff | null, owner: string | null): Promise<void> {
    inTransaction(this.#db, () => {
      this.#makeSession(sessionId, owner, handoff?.since ?? Date.now());
      this.#db
        .prepare('UPDATE sessions SET handoff = ? WHERE id = ?')
        .run(handoff ? JSON.stringify(handoff) : null, sessionId);
    });
  }

  async appendMessage(sessionId: string, message: ChatMessage, owner: string | null): Promise<void> {
    inTransaction(this.#db, () => {
      this.#makeSession(sessionId, owner, message.createdAt);
      this.#db
        .prepare('INSERT INTO messages (session_id, id, body) VALUES (?, ?, ?)')
        .run(sessionId, message.id, JSON.stringify(message));
    });
  }

  /** The session, with its owner, when it has no row yet (the history's own insert). */
  #makeSession(sessionId: string, owner: string | null, now: number): void {
    this.#db
      .prepare('INSERT OR IGNORE INTO sessions (id, created_at, owner) VALUES (?, ?, ?)')
      .run(sessionId, now, owner);
  }

  async eraseVisitor(visitorId: string): Promise<string[]> {
    return this.#erase('owner = ?', [visitorId]);
  }

  async eraseIdle(before: number): Promise<string[]> {
    return this.#erase(
      'coalesce(last_at, created_at) < ? AND NOT EXISTS (SELECT 1 FROM running_turns WHERE session_id = sessions.id)',
      [before],
    );
  }

  /** Erases the sessions `where` picks, with everything kept of them, in one transaction. */
  #erase(where: string, params: Array<string | number>): string[] {
    return inTransaction(this.#db, () => {
      const ids = (
        this.#db.prepare(`SELECT id FROM sessions WHERE ${where}`).all(...params) as Array<{ id: string }>
      ).map((row) => row.id);
      if (!ids.length) return ids;
      const list = JSON.stringify(ids);
      for (const table of [
        'tool_executions',
        'tool_grants',
        'running_turns',
        'messages',
        'images',
        'turn_timings',
      ])
        this.#db
          .prepare(`DELETE FROM ${table} WHERE session_id IN (SELECT value FROM json_each(?))`)
          .run(list);
      this.#db.prepare('DELETE FROM sessions WHERE id IN (SELECT value FROM json_each(?))').run(list);
      return ids;
    });
  }
}

function listingOf(row: ListingRow): ConversationListing {
  const rating = ratingOfRank(row.rating);
  return {
    sessionId: row.id,
    visitorId: row.owner,
    startedAt: Number(row.createdAt),
    lastAt: Number(row.lastAt),
    messageCount: Number(row.messageCount),
    ...(rating ? { rating } : {}),
    ...(row.handoff ? { handoff: row.handoff } : {}),
  };
}
