/**
 * The SQLite file of a data directory, through Node's built-in `node:sqlite` (Node 22.13
 * and later): no native module to compile on install. Shared by the history and the
 * budgets' counters (budgets/sqlite-budget-store.ts).
 */
import type { DatabaseSync as Database, SQLInputValue } from 'node:sqlite';

export type { Database, SQLInputValue };

/**
 * `node:sqlite`, loaded without its warning: Node 22 still prints "SQLite is an experimental
 * feature" once on load (Node 24 does not), which would read as a fault on every start. Only
 * that one warning is held back, and only while the module loads.
 */
const { DatabaseSync } = await (async () => {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).startsWith('SQLite is an experimental feature')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
})();

/** Opens (or creates) the file, in WAL mode with foreign keys on. */
export function openDatabase(path: string): Database {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
  return db;
}

/**
 * Runs `work` in one transaction: committed when it returns, rolled back when it throws
 * (the error goes on). IMMEDIATE takes the write lock at the start, so a transaction that
 * reads and then writes cannot fail half-way on a busy file.
 */
export function inTransaction<T>(db: Database, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // SQLite may have rolled back already (a full disk does): then ROLLBACK has nothing to end.
    try {
      db.exec('ROLLBACK');
    } catch {
      // No transaction left to end.
    }
    throw error;
  }
}

/** The first column of a row, or undefined without one (what `SELECT x ... WHERE ...` means). */
export function firstColumn<T>(row: Record<string, unknown> | undefined): T | undefined {
  if (row === undefined) return undefined;
  for (const key in row) return row[key] as T;
  return undefined;
}

/**
 * Brings a table of an older file up to date in place: the column is added, and the rows
 * from before have it NULL (a session without an owner, a mark without a turn id).
 */
export function addMissingColumn(db: Database, table: string, column: string, type: string): void {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as unknown as Array<{ name: string }>;
  if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
}
