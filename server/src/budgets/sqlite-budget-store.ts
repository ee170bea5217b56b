/**
 * Budget counters in SQLite, in their own table of the history's database file (the
 * history store lends its connection: `SqliteHistoryStore.database`), so they survive a
 * restart with the conversations. Counting is one UPSERT on the primary key; reading is
 * one lookup on it. node:sqlite is synchronous: the promises are already settled when
 * returned, and an error (a locked or full file) comes back as a rejection, not a throw.
 */
import type { Database } from '../history/sqlite-database.js';
import type { BudgetStore } from './budget-store.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS budget_counters (
    key TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (key, window_start)
  ) WITHOUT ROWID;
`;

export class SqliteBudgetStore implements BudgetStore {
  readonly #statements;

  constructor(db: Database) {
    db.exec(SCHEMA);
    this.#statements = {
      count: db.prepare('SELECT count FROM budget_counters WHERE key = ? AND window_start = ?'),
      add: db.prepare(
        `INSERT INTO budget_counters (key, window_start, count, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (key, window_start) DO UPDATE SET count = count + excluded.count
         RETURNING count`,
      ),
      // A scan, not an index: the table holds one row per active visitor and window, and
      // this runs about once an hour (budgets.ts), so every count stays one index write.
      prune: db.prepare('DELETE FROM budget_counters WHERE expires_at <= ?'),
      // Every window of the key: the ended ones would only wait for the next prune.
      forget: db.prepare('DELETE FROM budget_counters WHERE key = ?'),
    };
  }

  async count(key: string, windowStart: number): Promise<number> {
    return (this.#statements.count.get(key, windowStart)?.count as number | undefined) ?? 0;
  }

  async add(key: string, windowStart: number, amount: number, expiresAt: number): Promise<number> {
    return this.#statements.add.get(key, windowStart, amount, expiresAt)!.count as number;
  }

  async forget(key: string, _windowStarts: readonly number[]): Promise<void> {
    this.#statements.forget.run(key);
  }

  async prune(now: number): Promise<void> {
    this.#statements.prune.run(now);
  }
}
