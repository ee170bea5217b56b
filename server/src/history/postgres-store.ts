/**
 * History in PostgreSQL (the `pg` package), so that several server instances share one
 * history. Each turn boundary is one transaction, and the fencing of `endTurn` happens in
 * the database itself: the running mark is deleted only when it is the turn's own, and
 * the answer is stored only when a mark was deleted, so of two instances ending the same
 * turn exactly one stores an answer.
 */
import { randomUUID } from 'node:crypto';
import type { ChatMessage, Feedback, ImageRef } from '@aalis/protocol';
import pg from 'pg';
import { applyMigrations } from './postgres-migrations.js';
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

export interface PostgresHistoryOptions {
  /** Connections at most in the pool (pg's default: 10). */
  max?: number;
  /**
   * How long to wait for a connection, whether a new one or a free one of the pool, before
   * the call fails (default 10 s): a database that cannot be reached fails turns, it does
   * not hang them.
   */
  connectionTimeoutMillis?: number;
  /**
   * Told of errors on idle connections (the database restarted, the network dropped). The
   * pool drops such a connection and opens another when one is next needed; without this
   * they are ignored, as nothing was waiting on them.
   */
  onIdleError?: (error: Error) => void;
}

/** A running mark as stored: `turn_id` is null when no turn id was recorded. */
interface RunningMarkRow {
  session_id: string;
  turn_id: string | null;
  /** BIGINT: pg returns it as text, since not every BIGINT fits a number. */
  started_at: string;
}

export class PostgresHistoryStore implements HistoryStore {
  readonly #pool: pg.Pool;
  #closing: Promise<void> | undefined;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Connects to the database at `url` (postgres://user:password@host:port/database),
   * checks it answers, applies the schema migrations it lacks, and returns the store.
   * Fails with an Error whose message says in one line what failed, naming the database
   * without its password.
   */
  static async open(url: string, options: PostgresHistoryOptions = {}): Promise<PostgresHistoryStore> {
    const label = databaseLabel(url);
    if (!isPostgresUrl(url))
      throw new Error(
        `not a PostgreSQL URL: ${label} (expected postgres://user:password@host:port/database)`,
      );
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      application_name: 'aalis',
      // A database that stops answering (a network that drops packets) fails a query in
      // 10 s rather than holding a turn or a hello until TCP gives up.
      query_timeout: 10_000,
      statement_timeout: 10_000,
    });
    // Without a listener, an idle connection's error would end the process.
    pool.on('error', (error) => options.onIdleError?.(error));
    const fail = async (what: string, error: unknown): Promise<never> => {
      await pool.end().catch(() => {});
      throw new Error(oneLine(`PostgreSQL at ${label} ${what}`, url), { cause: error });
    };
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      return fail(whyUnusable(error), error);
    }
    try {
      await inTransaction(pool, (client) => applyMigrations(client));
    } catch (error) {
      return fail(`could not be prepared: ${(error as Error).message}`, error);
    }
    return new PostgresHistoryStore(pool);
  }

  /**
   * The connection pool, for tables of other concerns kept in the same database. Ended
   * by `close()`.
   */
  get pool(): pg.Pool {
    return this.#pool;
  }

  async hasSession(sessionId: string): Promise<boolean> {
    const { rowCount } = await this.#pool.query('SELECT 1 FROM sessions WHERE id = $1', [sessionId]);
    return rowCount === 1;
  }

  async ownerOf(sessionId: string): Promise<string | null | undefined> {
    const { rows } = await this.#pool.query<{ owner: string | null }>(
      'SELECT owner FROM sessions WHERE id = $1',
      [sessionId],
    );
    return rows[0]?.owner;
  }

  async beginTurn(
    sessionId: string,
    userMessage: ChatMessage,
    now: number,
    owner: string | null = null,
  ): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      await client.query(
        'INSERT INTO sessions (id, created_at, owner) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [sessionId, now, owner],
      );
      // A mark still here means the previous answer could not be stored: resolve it first.
      const dangling = await client.query<Pick<RunningMarkRow, 'started_at'>>(
        'DELETE FROM running_turns WHERE session_id = $1 RETURNING started_at',
        [sessionId],
      );
      const mark = dangling.rows[0];
      if (mark) {
        const since = Number(mark.started_at);
        await insertMessage(
          client,
          sessionId,
          interruptedTurnMessage(`msg_${randomUUID()}`, since, 'unsaved'),
        );
      }
      await insertMessage(client, sessionId, userMessage);
      // Plain INSERT: should another instance begin a turn of this session at the same
      // moment, one of the two fails on the key instead of replacing the other's mark.
      await client.query('INSERT INTO running_turns (session_id, turn_id, started_at) VALUES ($1, $2, $3)', [
        sessionId,
        userMessage.id,
        now,
      ]);
    });
  }

  async endTurn(sessionId: string, assistantMessage: ChatMessage, turnId?: string): Promise<boolean> {
    return inTransaction(this.#pool, async (client) => {
      // The DELETE locks the mark: an instance ending the same turn at the same moment
      // waits, then finds it gone. A mark without a turn id is anybody's.
      const cleared = await client.query(
        `DELETE FROM running_turns
          WHERE session_id = $1 AND ($2::text IS NULL OR turn_id IS NULL OR turn_id = $2)`,
        [sessionId, turnId ?? null],
      );
      if (cleared.rowCount === 0) return false;
      await insertMessage(client, sessionId, assistantMessage);
      return true;
    });
  }

  async page(sessionId: string, { limit, before }: { limit: number; before?: string }): Promise<HistoryPage> {
    // One row more than asked for tells whether older ones exist. An unknown `before`
    // makes the subquery NULL, so no row matches: an empty page, as in the other stores.
    const { rows } =
      before === undefined
        ? await this.#pool.query<{ body: string }>(
            'SELECT body FROM messages WHERE session_id = $1 ORDER BY seq DESC LIMIT $2',
            [sessionId, limit + 1],
          )
        : await this.#pool.query<{ body: string }>(
            `SELECT body FROM messages
              WHERE session_id = $1 AND seq < (SELECT seq FROM messages WHERE session_id = $1 AND id = $2)
              ORDER BY seq DESC LIMIT $3`,
            [sessionId, before, limit + 1],
          );
    const hasMore = rows.length > limit;
    const messages = rows
      .slice(0, limit)
      .reverse()
      .map((row) => JSON.parse(row.body) as ChatMessage);
    return { messages, hasMore };
  }

  async grantedTools(sessionId: string): Promise<string[]> {
    // COLLATE "C": the same order whatever the database's locale, as the other stores sort.
    const { rows } = await this.#pool.query<{ tool: string }>(
      'SELECT tool FROM tool_grants WHERE session_id = $1 ORDER BY tool COLLATE "C"',
      [sessionId],
    );
    return rows.map((row) => row.tool);
  }

  async grantTool(sessionId: string, toolName: string): Promise<void> {
    await this.#pool.query(
      'INSERT INTO tool_grants (session_id, tool) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [sessionId, toolName],
    );
  }

  async listSessions(owner: string, limit: number): Promise<SessionSummary[]> {
    // Most recently active first (the last message's seq); the first message is the first question.
    const { rows } = await this.#pool.query<SessionRow>(
      `SELECT s.id AS id, s.title AS title, s.created_at AS "createdAt",
              (SELECT body FROM messages WHERE session_id = s.id ORDER BY seq ASC LIMIT 1) AS first,
              (SELECT body FROM messages WHERE session_id = s.id ORDER BY seq DESC LIMIT 1) AS last
         FROM sessions s WHERE s.owner = $1
        ORDER BY (SELECT MAX(seq) FROM messages WHERE session_id = s.id) DESC NULLS LAST, s.created_at DESC
        LIMIT $2`,
      [owner, limit],
    );
    return rows.map(summaryOf);
  }

  async renameSession(owner: string, sessionId: string, title: string): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      'UPDATE sessions SET title = $3 WHERE id = $1 AND owner = $2',
      [sessionId, owner, title],
    );
    return rowCount === 1;
  }

  async deleteSession(owner: string, sessionId: string): Promise<boolean> {
    return inTransaction(this.#pool, async (client) => {
      // Locked, so that no turn of it begins while it goes.
      const { rowCount } = await client.query(
        `SELECT 1 FROM sessions WHERE id = $1 AND owner = $2
            AND NOT EXISTS (SELECT 1 FROM running_turns WHERE session_id = $1) FOR UPDATE`,
        [sessionId, owner],
      );
      if (rowCount !== 1) return false;
      for (const table of ['tool_executions', 'tool_grants', 'messages', 'running_turns', 'images'])
        await client.query(`DELETE FROM ${table} WHERE session_id = $1`, [sessionId]);
      await client.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
      return true;
    });
  }

  async putImage(image: StoredImage): Promise<void> {
    await this.#pool.query(
      `INSERT INTO images (id, session_id, mime_type, width, height, bytes, data, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        image.id,
        image.sessionId,
        image.mimeType,
        image.width,
        image.height,
        image.bytes,
        image.data,
        image.createdAt,
      ],
    );
  }

  async getImage(id: string): Promise<StoredImage | undefined> {
    const { rows } = await this.#pool.query<Omit<StoredImage, 'createdAt'> & { createdAt: string }>(
      `SELECT id, session_id AS "sessionId", mime_type AS "mimeType", width, height, bytes, data,
              created_at AS "createdAt" FROM images WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    // BIGINT arrives as text.
    return row && { ...row, createdAt: Number(row.createdAt) };
  }

  async imageRefs(sessionId: string, ids: readonly string[]): Promise<ImageRef[]> {
    const { rows } = await this.#pool.query<ImageRef>(
      `SELECT id, mime_type AS "mimeType", width, height, bytes FROM images
        WHERE session_id = $1 AND id = ANY($2)`,
      [sessionId, ids],
    );
    return rows;
  }

  async countImages(sessionId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ count: string }>(
      'SELECT count(*) AS count FROM images WHERE session_id = $1',
      [sessionId],
    );
    return Number(rows[0]!.count);
  }

  async dropOrphanImages(before: number): Promise<number> {
    const { rowCount } = await this.#pool.query(
      // A message names an image by its id (128 random bits): found in its stored body.
      `DELETE FROM images WHERE created_at < $1
          AND NOT EXISTS (SELECT 1 FROM messages
                           WHERE messages.session_id = images.session_id AND strpos(messages.body, images.id) > 0)`,
      [before],
    );
    return rowCount ?? 0;
  }

  async unsentImageBytes(): Promise<number> {
    // sum() of an integer column is a bigint, which pg gives as a string.
    const { rows } = await this.#pool.query<{ bytes: string }>(
      `SELECT coalesce(sum(bytes), 0) AS bytes FROM images
        WHERE NOT EXISTS (SELECT 1 FROM messages
                           WHERE messages.session_id = images.session_id AND strpos(messages.body, images.id) > 0)`,
    );
    return Number(rows[0]!.bytes);
  }

  async setFeedback(sessionId: string, messageId: string, feedback: Feedback): Promise<FeedbackKept | false> {
    // Read, changed and written back in one transaction, the row locked meanwhile: the body
    // is JSON text that may hold what JSONB refuses (a NUL), so it is not cast to JSONB.
    return inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<{ body: string }>(
        'SELECT body FROM messages WHERE session_id = $1 AND id = $2 FOR UPDATE',
        [sessionId, messageId],
      );
      const message = rows[0] && (JSON.parse(rows[0].body) as ChatMessage);
      if (message?.role !== 'assistant') return false;
      await client.query('UPDATE messages SET body = $3 WHERE session_id = $1 AND id = $2', [
        sessionId,
        messageId,
        JSON.stringify({ ...message, feedback }),
      ]);
      return { before: message.feedback };
    });
  }

  async toolStarting({ sessionId, turnId, callId, name, at }: ToolExecutionStart): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      // Only while the turn is the one marked running: a turn another instance ended
      // (fencing) runs no more tools.
      `INSERT INTO tool_executions (session_id, turn_id, call_id, name, started_at)
       SELECT $1, $2, $3, $4, $5
        WHERE EXISTS (SELECT 1 FROM running_turns
                       WHERE session_id = $1 AND (turn_id = $2 OR turn_id IS NULL))
       ON CONFLICT DO NOTHING`,
      [sessionId, turnId, callId, name, at],
    );
    return rowCount === 1;
  }

  async toolEnded(
    sessionId: string,
    turnId: string,
    callId: string,
    outcome: 'done' | 'error',
    at: number,
  ): Promise<void> {
    // The first ending recorded is the one that happened: a later report changes nothing.
    await this.#pool.query(
      `UPDATE tool_executions SET ended_at = $4, outcome = $5
        WHERE session_id = $1 AND turn_id = $2 AND call_id = $3 AND ended_at IS NULL`,
      [sessionId, turnId, callId, at, outcome],
    );
  }

  async unfinishedTools(sessionId: string, turnId: string): Promise<string[]> {
    const { rows } = await this.#pool.query<{ call_id: string }>(
      `SELECT call_id FROM tool_executions
        WHERE session_id = $1 AND turn_id = $2 AND ended_at IS NULL
        ORDER BY started_at, call_id COLLATE "C"`,
      [sessionId, turnId],
    );
    return rows.map((row) => row.call_id);
  }

  async recoverInterruptedTurns(stillRunning?: (sessionId: string) => Promise<boolean>): Promise<number> {
    const { rows } = await this.#pool.query<RunningMarkRow>(
      'SELECT session_id, turn_id, started_at FROM running_turns',
    );
    let count = 0;
    for (const mark of rows) {
      if (stillRunning && (await stillRunning(mark.session_id))) continue;
      // Only the very mark seen is resolved: the turn may have ended since, or a newer one
      // begun, on another instance (or another instance recovered it first).
      const resolved = await inTransaction(this.#pool, async (client) => {
        const cleared = await client.query(
          'DELETE FROM running_turns WHERE session_id = $1 AND turn_id IS NOT DISTINCT FROM $2',
          [mark.session_id, mark.turn_id],
        );
        if (cleared.rowCount === 0) return false;
        const since = Number(mark.started_at);
        await insertMessage(client, mark.session_id, interruptedTurnMessage(`msg_${randomUUID()}`, since));
        return true;
      });
      if (resolved) count++;
    }
    return count;
  }

  /** Ends the pool once its running queries are done; a second call waits for the same end. */
  close(): Promise<void> {
    return (this.#closing ??= this.#pool.end());
  }
}

/**
 * Runs `work` in a transaction on one connection of the pool: COMMIT when it resolves,
 * ROLLBACK when it throws (and the error is rethrown).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
    throw error;
  } finally {
    // A connection that could not even roll back is dropped, not handed to the next caller.
    client.release(broken);
  }
}

/**
 * The message's JSON under its id. Storing an id again replaces the body (a retried
 * answer), as the SQLite store does.
 */
async function insertMessage(client: pg.PoolClient, sessionId: string, message: ChatMessage): Promise<void> {
  await client.query(
    `INSERT INTO messages (session_id, id, body) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body`,
    [sessionId, message.id, JSON.stringify(message)],
  );
}

/**
 * The database URL for log lines and error messages: scheme, user, host, port and
 * database, never the password (nor the query, where libpq-style URLs may carry one).
 */
export function databaseLabel(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Echoing an unparseable string could print a password: say only what it is not.
    return '(an unparseable URL)';
  }
  const user = parsed.username ? `${parsed.username}@` : '';
  const host = parsed.hostname || 'localhost';
  return `${parsed.protocol}//${user}${host}:${parsed.port || '5432'}${parsed.pathname}`;
}

function isPostgresUrl(url: string): boolean {
  try {
    return ['postgres:', 'postgresql:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** Why the first query failed, in the words an operator acts on. */
function whyUnusable(error: unknown): string {
  const { code, message = '', errors } = error as { code?: string; message?: string; errors?: unknown[] };
  // Node reports a host tried over IPv6 and IPv4 as an AggregateError of both attempts.
  const networkCode = code ?? (errors?.[0] as { code?: string } | undefined)?.code;
  if (networkCode && /^E[A-Z]+$/.test(networkCode)) return `cannot be reached: ${networkCode}`;
  if (/timeout/i.test(message)) return 'cannot be reached: no answer in time';
  // The server answered and said no: a wrong password, an unknown database or user.
  if (error instanceof pg.DatabaseError) return `refused the connection: ${message}`;
  return `cannot be used: ${message || String(error)}`;
}

/** The message on one line, with the URL's password (should anything quote it) masked. */
function oneLine(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // No parseable URL, no password to find in the message.
  }
  const single = message.replace(/\s*\n\s*/g, ' ');
  return password ? single.split(password).join('***') : single;
}
