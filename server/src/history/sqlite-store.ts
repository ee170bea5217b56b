/**
 * History in SQLite (better-sqlite3) under a data directory, so a restart keeps every
 * chat. Writes are synchronous and each turn boundary is one transaction.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ChatMessage } from '@aalis/protocol';
import { interruptedTurnMessage, type HistoryPage, type HistoryStore } from './store.js';

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
    started_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS tool_grants (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    tool TEXT NOT NULL,
    PRIMARY KEY (session_id, tool)
  );
`;

export class SqliteHistoryStore implements HistoryStore {
  readonly #db: Database.Database;
  readonly #statements;

  /** Opens (or creates) `aalis.sqlite` in `dataDir`. */
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.#db = new Database(join(dataDir, 'aalis.sqlite'));
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.exec(SCHEMA);
    addOwnerColumn(this.#db);
    const db = this.#db;
    this.#statements = {
      createSession: db.prepare('INSERT OR IGNORE INTO sessions (id, created_at, owner) VALUES (?, ?, ?)'),
      hasSession: db.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck(),
      ownerOf: db.prepare('SELECT owner FROM sessions WHERE id = ?'),
      insertMessage: db.prepare('INSERT OR REPLACE INTO messages (session_id, id, body) VALUES (?, ?, ?)'),
      // Plain INSERT: a mark left by an answer that could not be stored must be resolved
      // (beginTurn does), never silently replaced.
      markRunning: db.prepare('INSERT INTO running_turns (session_id, started_at) VALUES (?, ?)'),
      runningSince: db.prepare('SELECT started_at FROM running_turns WHERE session_id = ?').pluck(),
      clearRunning: db.prepare('DELETE FROM running_turns WHERE session_id = ?'),
      running: db.prepare('SELECT session_id AS sessionId, started_at AS startedAt FROM running_turns'),
      grants: db.prepare('SELECT tool FROM tool_grants WHERE session_id = ? ORDER BY tool').pluck(),
      grant: db.prepare('INSERT OR IGNORE INTO tool_grants (session_id, tool) VALUES (?, ?)'),
      latest: db.prepare('SELECT body FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?').pluck(),
      seqOf: db.prepare('SELECT seq FROM messages WHERE session_id = ? AND id = ?').pluck(),
      before: db
        .prepare('SELECT body FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?')
        .pluck(),
    };
  }

  /**
   * The open database, for tables of other concerns kept in the same file (the budgets'
   * counters: budgets/sqlite-budget-store.ts). Closed by `close()`.
   */
  get database(): Database.Database {
    return this.#db;
  }

  hasSession(sessionId: string): boolean {
    return this.#statements.hasSession.get(sessionId) !== undefined;
  }

  ownerOf(sessionId: string): string | null | undefined {
    const row = this.#statements.ownerOf.get(sessionId) as { owner: string | null } | undefined;
    return row === undefined ? undefined : row.owner;
  }

  beginTurn(sessionId: string, userMessage: ChatMessage, now: number, owner: string | null = null): void {
    this.#db.transaction(() => {
      this.#statements.createSession.run(sessionId, now, owner);
      const dangling = this.#statements.runningSince.get(sessionId) as number | undefined;
      if (dangling !== undefined)
        this.#endTurn(sessionId, interruptedTurnMessage(`msg_${randomUUID()}`, dangling, 'unsaved'));
      this.#statements.insertMessage.run(sessionId, userMessage.id, JSON.stringify(userMessage));
      this.#statements.markRunning.run(sessionId, now);
    })();
  }

  grantedTools(sessionId: string): string[] {
    return this.#statements.grants.all(sessionId) as string[];
  }

  grantTool(sessionId: string, toolName: string): void {
    this.#statements.grant.run(sessionId, toolName);
  }

  endTurn(sessionId: string, assistantMessage: ChatMessage): void {
    this.#db.transaction(() => this.#endTurn(sessionId, assistantMessage))();
  }

  #endTurn(sessionId: string, assistantMessage: ChatMessage): void {
    this.#statements.insertMessage.run(sessionId, assistantMessage.id, JSON.stringify(assistantMessage));
    this.#statements.clearRunning.run(sessionId);
  }

  page(sessionId: string, { limit, before }: { limit: number; before?: string }): HistoryPage {
    let rows: string[];
    if (before === undefined) {
      rows = this.#statements.latest.all(sessionId, limit + 1) as string[];
    } else {
      const seq = this.#statements.seqOf.get(sessionId, before) as number | undefined;
      if (seq === undefined) return { messages: [], hasMore: false };
      rows = this.#statements.before.all(sessionId, seq, limit + 1) as string[];
    }
    const hasMore = rows.length > limit;
    const messages = rows
      .slice(0, limit)
      .reverse()
      .map((body) => JSON.parse(body) as ChatMessage);
    return { messages, hasMore };
  }

  recoverInterruptedTurns(): number {
    const running = this.#statements.running.all() as Array<{ sessionId: string; startedAt: number }>;
    for (const { sessionId, startedAt } of running) {
      this.endTurn(sessionId, interruptedTurnMessage(`msg_${randomUUID()}`, startedAt));
    }
    return running.length;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

/** Data from before sessions had owners: the column is added, and those sessions have none. */
function addOwnerColumn(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(sessions)').all() as Array<{ name: string }>;
  if (!columns.some((c) => c.name === 'owner')) db.exec('ALTER TABLE sessions ADD COLUMN owner TEXT');
}
