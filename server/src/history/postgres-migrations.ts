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
  {
    version: 4,
    name: 'the owner console: search, activity, export, turn timings and handoffs',
    // What the archive (postgres-archive.ts) reads of a message is kept in generated
    // columns: the store's own writes stay as they are, a feedback's rewrite of a body
    // recomputes them, and adding them fills them for the messages already there.
    //
    // aalis_json reads JSON text as PostgreSQL cannot: `\u0000` (which TEXT cannot hold)
    // and a lone surrogate escape (JSON.stringify writes one for a broken emoji) make any
    // extraction fail, which would fail the message's insert. They become a space (only
    // escapes: in `\\u0000` the backslash is text). No function calls one of ours, so a
    // pg_dump restore, which runs with an empty search_path, can recompute the columns.
    //
    // The words are the text parts' ('simple': lower case, no stemming, any language),
    // every ASCII character but letters and digits made a space first, so that
    // 'shop.example/refund' or '3.14' hold the words a search (searchWords) is made of.
    // The first 100,000 characters only: a tsvector over 1 MB is an error, not a truncation.
    //
    // A session's last activity (last_at) is kept by a trigger, for a listing in that
    // order without reading messages; ids in byte order (COLLATE "C"), as the other stores
    // page whatever the database's locale. A turn's timing goes with its answer (the
    // foreign key). A handoff is JSON text too (its reason may hold a NUL).
    // (String.raw: the SQL's backslashes are as written.)
    sql: String.raw`
      CREATE FUNCTION aalis_json(body TEXT) RETURNS json
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
          SELECT regexp_replace(body, $re$(?<!\\)((?:\\\\)*)\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})$re$,
                                $re$\1 $re$, 'g')::json
        $fn$;
      CREATE FUNCTION aalis_message_words(message json) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
          SELECT to_tsvector('simple', regexp_replace(left(coalesce(string_agg(part ->> 'text', ' '), ''), 100000),
                                                      $re$[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+$re$, ' ', 'g'))
            FROM json_array_elements(CASE json_typeof(message -> 'parts') WHEN 'array' THEN message -> 'parts' END) part
           WHERE part ->> 'type' = 'text'
        $fn$;
      ALTER TABLE messages
        ADD COLUMN created_at BIGINT
          GENERATED ALWAYS AS ((aalis_json(body) ->> 'createdAt')::numeric::bigint) STORED,
        ADD COLUMN rating SMALLINT
          GENERATED ALWAYS AS (CASE aalis_json(body) #>> '{feedback,rating}'
                               WHEN 'down' THEN 2 WHEN 'up' THEN 1 ELSE 0 END) STORED,
        ADD COLUMN words tsvector GENERATED ALWAYS AS (aalis_message_words(aalis_json(body))) STORED;
      CREATE INDEX messages_by_words ON messages USING gin (words);
      CREATE INDEX messages_by_time ON messages (created_at, seq);

      ALTER TABLE sessions
        ADD COLUMN last_at BIGINT,
        ADD COLUMN handoff TEXT,
        ADD COLUMN handoff_state TEXT GENERATED ALWAYS AS (aalis_json(handoff) ->> 'state') STORED;
      UPDATE sessions SET last_at = (SELECT max(created_at) FROM messages WHERE session_id = sessions.id);
      CREATE INDEX sessions_by_activity ON sessions ((coalesce(last_at, created_at)), id COLLATE "C");
      CREATE INDEX sessions_handed_off ON sessions ((coalesce(last_at, created_at)), id COLLATE "C")
        WHERE handoff_state IS NOT NULL;
      CREATE FUNCTION aalis_session_touched() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          UPDATE sessions SET last_at = greatest(last_at, NEW.created_at) WHERE id = NEW.session_id;
          RETURN NULL;
        END
      $fn$;
      CREATE TRIGGER messages_touch_session AFTER INSERT ON messages
        FOR EACH ROW EXECUTE FUNCTION aalis_session_touched();
      -- A feedback rewrites a body but not its time: no need to touch the session then.
      CREATE TRIGGER messages_retouch_session AFTER UPDATE OF body ON messages
        FOR EACH ROW WHEN (NEW.created_at IS DISTINCT FROM OLD.created_at)
        EXECUTE FUNCTION aalis_session_touched();

      CREATE TABLE turn_timings (
        message_id TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
        session_id TEXT NOT NULL,
        at BIGINT NOT NULL,
        first_token_ms DOUBLE PRECISION,
        model TEXT
      );
      CREATE INDEX turn_timings_by_time ON turn_timings (at, message_id COLLATE "C");
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
