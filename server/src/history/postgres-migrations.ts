/**
 * The PostgreSQL history's schema, as an ordered list of numbered migrations. Each one is
 * applied once per database and recorded in `aalis_schema_migrations`; a migration once
 * released is never edited, a change is a new entry at the end. Several instances may
 * start at once against one database: they take turns under an advisory lock, so the
 * first applies what is missing and the others find it done.
 */
import type pg from 'pg';

export interface Migration {
  /** 1, 2, 3, ...: the order they are applied in. */
  version: number;
  /** What it does, for the record and for error messages. */
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'history tables',
    // Times are milliseconds since the epoch (BIGINT), as the other stores keep them.
    // Message bodies are the JSON text as written (TEXT, not JSONB): JSONB would reject
    // a message whose text holds a NUL character (\u0000), which a model may produce,
    // and nothing queries inside a body.
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created_at BIGINT NOT NULL,
        owner TEXT
      );
      CREATE TABLE messages (
        seq BIGSERIAL PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id),
        id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL
      );
      CREATE INDEX messages_by_session ON messages (session_id, seq);
      CREATE TABLE running_turns (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id),
        turn_id TEXT,
        started_at BIGINT NOT NULL
      );
      CREATE TABLE tool_grants (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        tool TEXT NOT NULL,
        PRIMARY KEY (session_id, tool)
      );
      CREATE TABLE tool_executions (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        turn_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        ended_at BIGINT,
        outcome TEXT CHECK (outcome IN ('done', 'error')),
        PRIMARY KEY (session_id, turn_id, call_id)
      );
    `,
  },
  {
    version: 2,
    name: 'conversation names, and sessions listed by owner',
    sql: `
      ALTER TABLE sessions ADD COLUMN title TEXT;
      CREATE INDEX sessions_by_owner ON sessions (owner);
    `,
  },
  {
    version: 3,
    name: 'images visitors attach to their questions',
    // No reference to sessions: an image is uploaded before the question that makes the session.
    sql: `
      CREATE TABLE images (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        data BYTEA NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX images_by_session ON images (session_id);
    `,
  },
];

/**
 * The advisory lock key the migrations are applied under: any fixed number will do, as
 * long as no other program using the database takes the same one. ('aalis' in ASCII.)
 */
const MIGRATION_LOCK = 0x61616c6973;

/**
 * Applies the migrations the database lacks, in order; returns the versions applied (none
 * when the schema was up to date). Run it inside a transaction (`inTransaction` of
 * postgres-store.ts): the lock it takes is held until that transaction ends, and a failure
 * rolls every migration of the run back. A failing migration throws an Error naming it.
 */
export async function applyMigrations(
  client: pg.ClientBase,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  // A second instance starting at the same time waits here, then finds the rows.
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
  await client.query(`
    CREATE TABLE IF NOT EXISTS aalis_schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )
  `);
  const { rows } = await client.query<{ version: number }>('SELECT version FROM aalis_schema_migrations');
  const done = new Set(rows.map((row) => row.version));
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(migration.version)) continue;
    try {
      await client.query(migration.sql);
    } catch (error) {
      throw new Error(
        `schema migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    await client.query('INSERT INTO aalis_schema_migrations (version, name) VALUES ($1, $2)', [
      migration.version,
      migration.name,
    ]);
    applied.push(migration.version);
  }
  return applied;
}
