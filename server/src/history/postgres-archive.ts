/**
 * The PostgreSQL history's archive (archive.ts): the console's listing, search, export,
 * turn timings, handoffs and erasure over the history's own database. What it reads of a
 * message (its time, rating and words) and of a session (its last activity, its handoff's
 * state) the database keeps itself, in the columns and trigger of schema migration 4
 * (postgres-migrations.ts), so the history's own writes stay as they are.
 *
 * Times come back from pg as text (BIGINT may not fit a number): they are converted, and
 * keys handed back to the database as they came.
 */
import type { ChatMessage, Handoff } from '@aalis/protocol';
import type pg from 'pg';
import {
  listingPage,
  RATING_RANK,
  ratingOfRank,
  ARCHIVE_PAGE,
  searchWords,
  type ArchivedConversation,
  type ArchivedMessage,
  type ConversationArchive,
  type ConversationListing,
  type ConversationListingPage,
  type ConversationQuery,
  type TurnTiming,
} from './archive.js';
import { inTransaction } from './postgres-store.js';

/** The listing's order, newest activity first; the index sessions_by_activity has it. */
const ACTIVITY = 'coalesce(s.last_at, s.created_at)';
const ID = 's.id COLLATE "C"';

/**
 * What a session holds beside its row, each table's rows named by `session_id`. (Its
 * turn_timings go with its messages: their foreign key cascades.)
 */
const SESSION_TABLES = ['tool_executions', 'tool_grants', 'running_turns', 'messages', 'images'];

/** A foreign key violated: here, a timing whose answer was erased meanwhile. */
const FOREIGN_KEY_VIOLATION = '23503';

interface ListingRow {
  id: string;
  owner: string | null;
  created_at: string;
  last_at: string;
  message_count: string;
  rating: number;
  handoff_state: Handoff['state'] | null;
}

interface MessageRow {
  seq: string;
  session_id: string;
  owner: string | null;
  body: string;
  created_at: string;
}

interface TimingRow {
  message_id: string;
  session_id: string;
  at: string;
  first_token_ms: number | null;
  model: string | null;
}

export class PostgresArchive implements ConversationArchive {
  constructor(readonly pool: pg.Pool) {}

  async conversations(query: ConversationQuery): Promise<ConversationListingPage> {
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where: string[] = [];
    if (query.cursor)
      where.push(
        `(${ACTIVITY}, ${ID}) < (${param(query.cursor.lastAt)}::bigint, ${param(query.cursor.sessionId)})`,
      );
    const words = searchWords(query.q);
    if (words.length)
      // Every word as a prefix, all in one message. The words are letters and digits only,
      // so they hold no tsquery syntax; they go as a parameter all the same.
      where.push(`s.id IN (SELECT session_id FROM messages
                            WHERE words @@ to_tsquery('simple', ${param(words.map((w) => `${w}:*`).join(' & '))}))`);
    if (query.rating) where.push(`m.rating = ${param(RATING_RANK[query.rating])}`);
    if (query.handoff) where.push(`s.handoff_state = ${param(query.handoff)}`);
    const { rows } = await this.pool.query<ListingRow>(
      `SELECT s.id, s.owner, s.created_at, ${ACTIVITY} AS last_at, m.message_count, m.rating,
              s.handoff_state
         FROM sessions s
        CROSS JOIN LATERAL (SELECT count(*) AS message_count, coalesce(max(rating), 0) AS rating
                              FROM messages WHERE session_id = s.id) m
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY ${ACTIVITY} DESC, ${ID} DESC
        LIMIT ${param(query.limit + 1)}`,
      params,
    );
    // One row more than asked for tells whether a next page exists.
    return listingPage(rows.map(listingOf), query.limit);
  }

  async conversation(sessionId: string): Promise<ArchivedConversation | undefined> {
    const { rows } = await this.pool.query<{ owner: string | null; created_at: string }>(
      'SELECT owner, created_at FROM sessions WHERE id = $1',
      [sessionId],
    );
    const session = rows[0];
    if (!session) return undefined;
    const bodies = await this.pool.query<{ body: string }>(
      'SELECT body FROM messages WHERE session_id = $1 ORDER BY seq',
      [sessionId],
    );
    return {
      sessionId,
      visitorId: session.owner,
      startedAt: Number(session.created_at),
      messages: bodies.rows.map((row) => JSON.parse(row.body) as ChatMessage),
    };
  }

  async *messages(from: number, to: number): AsyncIterable<ArchivedMessage> {
    // A page at a time, each after the last one read (keyset on the index messages_by_time):
    // no transaction nor cursor stays open while the caller writes the export out.
    let after: [string | number, string | number] = [from, 0];
    for (;;) {
      const { rows } = await this.pool.query<MessageRow>(
        `SELECT m.seq, m.session_id, s.owner, m.body, m.created_at
           FROM messages m JOIN sessions s ON s.id = m.session_id
          WHERE m.created_at >= $1 AND m.created_at < $2 AND (m.created_at, m.seq) > ($3::bigint, $4::bigint)
          ORDER BY m.created_at, m.seq
          LIMIT ${ARCHIVE_PAGE}`,
        [from, to, ...after],
      );
      for (const row of rows)
        yield {
          sessionId: row.session_id,
          visitorId: row.owner,
          message: JSON.parse(row.body) as ChatMessage,
        };
      const last = rows.at(-1);
      if (!last || rows.length < ARCHIVE_PAGE) return;
      after = [last.created_at, last.seq];
    }
  }

  async recordTurn(timing: TurnTiming): Promise<void> {
    try {
      // Only for an answer stored: one erased (or never stored) leaves no timing behind.
      await this.pool.query(
        `INSERT INTO turn_timings (message_id, session_id, at, first_token_ms, model)
         SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM messages WHERE id = $1 AND session_id = $2)
         ON CONFLICT (message_id) DO UPDATE
           SET session_id = EXCLUDED.session_id, at = EXCLUDED.at,
               first_token_ms = EXCLUDED.first_token_ms, model = EXCLUDED.model`,
        [timing.messageId, timing.sessionId, timing.at, timing.firstTokenMs, timing.model],
      );
    } catch (error) {
      // The answer was erased between the check and the insert: nothing to keep, as above.
      if ((error as pg.DatabaseError).code !== FOREIGN_KEY_VIOLATION) throw error;
    }
  }

  async *timings(from: number, to: number): AsyncIterable<TurnTiming> {
    let after: [string | number, string] = [from, ''];
    for (;;) {
      const { rows } = await this.pool.query<TimingRow>(
        `SELECT message_id, session_id, at, first_token_ms, model FROM turn_timings
          WHERE at >= $1 AND at < $2 AND (at, message_id COLLATE "C") > ($3::bigint, $4)
          ORDER BY at, message_id COLLATE "C"
          LIMIT ${ARCHIVE_PAGE}`,
        [from, to, ...after],
      );
      for (const row of rows)
        yield {
          sessionId: row.session_id,
          messageId: row.message_id,
          at: Number(row.at),
          firstTokenMs: row.first_token_ms,
          model: row.model,
        };
      const last = rows.at(-1);
      if (!last || rows.length < ARCHIVE_PAGE) return;
      after = [last.at, last.message_id];
    }
  }

  async handoff(sessionId: string): Promise<Handoff | undefined> {
    const { rows } = await this.pool.query<{ handoff: string | null }>(
      'SELECT handoff FROM sessions WHERE id = $1',
      [sessionId],
    );
    const handoff = rows[0]?.handoff;
    return handoff ? (JSON.parse(handoff) as Handoff) : undefined;
  }

  async setHandoff(sessionId: string, handoff: Handoff | null, owner: string | null): Promise<void> {
    // The session is made, with its owner, when it has none yet: one may ask for a person first.
    await this.pool.query(
      `INSERT INTO sessions (id, created_at, owner, handoff) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET handoff = EXCLUDED.handoff`,
      [sessionId, handoff?.since ?? Date.now(), owner, handoff ? JSON.stringify(handoff) : null],
    );
  }

  async appendMessage(sessionId: string, message: ChatMessage, owner: string | null): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        'INSERT INTO sessions (id, created_at, owner) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [sessionId, message.createdAt, owner],
      );
      await client.query('INSERT INTO messages (session_id, id, body) VALUES ($1, $2, $3)', [
        sessionId,
        message.id,
        JSON.stringify(message),
      ]);
    });
  }

  async eraseVisitor(visitorId: string): Promise<string[]> {
    return inTransaction(this.pool, async (client) => {
      // A turn ending holds its running mark, then adds its answer to the session: the marks
      // go first here, in that same order, so that the two never wait on each other.
      await client.query(
        'DELETE FROM running_turns WHERE session_id IN (SELECT id FROM sessions WHERE owner = $1)',
        [visitorId],
      );
      return erase(client, 'owner = $1', visitorId);
    });
  }

  async eraseIdle(before: number): Promise<string[]> {
    // A turn that begins meanwhile touches last_at (the trigger), and a locked row is checked
    // again once that turn commits: it is then no longer idle, and stays.
    return inTransaction(this.pool, (client) =>
      erase(
        client,
        `coalesce(last_at, created_at) < $1
           AND NOT EXISTS (SELECT 1 FROM running_turns WHERE session_id = sessions.id)`,
        before,
      ),
    );
  }
}

/**
 * Erases the sessions `where` picks, with everything kept of them. Their rows are locked
 * first: no message is added to one while it goes (a turn's insert waits, then fails).
 */
async function erase(client: pg.PoolClient, where: string, param: string | number): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(`SELECT id FROM sessions WHERE ${where} FOR UPDATE`, [
    param,
  ]);
  const ids = rows.map((row) => row.id);
  if (!ids.length) return ids;
  for (const table of SESSION_TABLES)
    await client.query(`DELETE FROM ${table} WHERE session_id = ANY($1)`, [ids]);
  await client.query('DELETE FROM sessions WHERE id = ANY($1)', [ids]);
  return ids;
}

function listingOf(row: ListingRow): ConversationListing {
  const rating = ratingOfRank(row.rating);
  return {
    sessionId: row.id,
    visitorId: row.owner,
    startedAt: Number(row.created_at),
    lastAt: Number(row.last_at),
    messageCount: Number(row.message_count),
    ...(rating ? { rating } : {}),
    ...(row.handoff_state ? { handoff: row.handoff_state } : {}),
  };
}
