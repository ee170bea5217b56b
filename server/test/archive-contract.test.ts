/**
 * What every built-in history's archive promises (history/archive.ts), checked against
 * each: memory, SQLite in a temporary directory, and a real PostgreSQL started for this
 * file, every test on an empty store of its own. Messages are stored as the hub stores
 * them (beginTurn, endTurn, setFeedback), and read back through the archive.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '@aalis/protocol';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { archiveOf } from '../src/history/archive-of.js';
import { transcriptOf, type ConversationArchive } from '../src/history/archive.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { MIGRATIONS, applyMigrations } from '../src/history/postgres-migrations.js';
import { inTransaction, PostgresHistoryStore } from '../src/history/postgres-store.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import type { HistoryStore } from '../src/history/store.js';
import { startPostgres, type TestPostgres } from './services/postgres.js';

const openStores: HistoryStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(openStores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let postgres: TestPostgres | undefined;
const thePostgres = async () => (postgres ??= await startPostgres());
afterAll(async () => {
  await postgres?.stop();
});

interface Backend {
  name: string;
  setUp?(): Promise<unknown>;
  /** An empty store; `reopen` opens its data again (a restart). */
  fresh(): Promise<{ store: HistoryStore; reopen?: () => Promise<HistoryStore> }>;
}

const backends: Backend[] = [
  { name: 'memory', fresh: async () => ({ store: new MemoryHistoryStore() }) },
  {
    name: 'SQLite',
    fresh: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'aalis-archive-'));
      dirs.push(dir);
      const reopen = async () => {
        const store = new SqliteHistoryStore(dir);
        openStores.push(store);
        return store;
      };
      return { store: await reopen(), reopen };
    },
  },
  {
    name: 'PostgreSQL',
    setUp: thePostgres,
    fresh: async () => {
      const url = await (await thePostgres()).createDatabase();
      const reopen = async () => {
        const store = await PostgresHistoryStore.open(url, { max: 4 });
        openStores.push(store);
        return store;
      };
      return { store: await reopen(), reopen };
    },
  },
];

const message = (id: string, role: 'user' | 'assistant', text: string, createdAt: number): ChatMessage => ({
  id,
  role,
  parts: [{ type: 'text', text }],
  createdAt,
});

/** One exchange of a session: a question at `at`, its answer a second later. */
async function exchange(
  store: HistoryStore,
  sessionId: string,
  owner: string | null,
  n: number,
  at: number,
  question = `question ${n}`,
  reply = `answer ${n}`,
) {
  await store.beginTurn(sessionId, message(`${sessionId}-u${n}`, 'user', question, at), at, owner);
  await store.endTurn(
    sessionId,
    message(`${sessionId}-a${n}`, 'assistant', reply, at + 1_000),
    `${sessionId}-u${n}`,
  );
}

const all = async <T>(items: AsyncIterable<T>) => {
  const got: T[] = [];
  for await (const item of items) got.push(item);
  return got;
};

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 2, 9);

describe.each(backends.map((backend) => [backend.name, backend] as const))('%s archive', (_, backend) => {
  beforeAll(async () => {
    await backend.setUp?.();
  }, 60_000);
  const fresh = async () => {
    const { store, reopen } = await backend.fresh();
    return { store, archive: archiveOf(store)!, reopen };
  };

  test('lists every visitor’s conversations, most recently active first, paged by cursor', async () => {
    const { store, archive } = await fresh();
    await exchange(store, 'old', 'user:ann', 0, T0);
    await exchange(store, 'mid', 'anon:x1', 0, T0 + DAY);
    await exchange(store, 'new', 'user:bob', 0, T0 + 2 * DAY);
    // A later exchange makes the oldest session the most recently active.
    await exchange(store, 'old', 'user:ann', 1, T0 + 3 * DAY);
    await exchange(store, 'legacy', null, 0, T0 - DAY);
    const first = await archive.conversations({ limit: 2 });
    expect(first.conversations).toEqual([
      {
        sessionId: 'old',
        visitorId: 'user:ann',
        startedAt: T0,
        lastAt: T0 + 3 * DAY + 1_000,
        messageCount: 4,
      },
      {
        sessionId: 'new',
        visitorId: 'user:bob',
        startedAt: T0 + 2 * DAY,
        lastAt: T0 + 2 * DAY + 1_000,
        messageCount: 2,
      },
    ]);
    expect(first.next).toBeDefined();
    const second = await archive.conversations({ limit: 2, cursor: first.next! });
    expect(second.conversations.map((c) => [c.sessionId, c.visitorId])).toEqual([
      ['mid', 'anon:x1'],
      ['legacy', null],
    ]);
    expect(second.next).toBeUndefined();
    // Equal activity: the order is still total, so paging never repeats nor skips one.
    await exchange(store, 'tie-a', 'user:t', 0, T0 + 9 * DAY);
    await exchange(store, 'tie-b', 'user:t', 0, T0 + 9 * DAY);
    const seen: string[] = [];
    let cursor;
    do {
      const page = await archive.conversations({ limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.conversations.map((c) => c.sessionId));
      cursor = page.next;
    } while (cursor);
    expect(seen).toEqual(['tie-b', 'tie-a', 'old', 'new', 'mid', 'legacy']);
  });

  test('filters by rating: down if any answer is rated down, up if one is and none is down', async () => {
    const { store, archive } = await fresh();
    for (const [i, id] of ['liked', 'mixed', 'plain'].entries()) {
      await exchange(store, id, 'user:v', 0, T0 + i * 10_000);
      await exchange(store, id, 'user:v', 1, T0 + i * 10_000 + 2_000);
    }
    await store.setFeedback('liked', 'liked-a0', { rating: 'up' });
    await store.setFeedback('mixed', 'mixed-a0', { rating: 'up' });
    await store.setFeedback('mixed', 'mixed-a1', { rating: 'down', comment: 'wrong date' });
    const ids = async (rating?: 'up' | 'down') =>
      (await archive.conversations({ limit: 10, ...(rating ? { rating } : {}) })).conversations.map((c) => [
        c.sessionId,
        c.rating ?? null,
      ]);
    expect(await ids('down')).toEqual([['mixed', 'down']]);
    expect(await ids('up')).toEqual([['liked', 'up']]);
    expect(await ids()).toEqual([
      ['plain', null],
      ['mixed', 'down'],
      ['liked', 'up'],
    ]);
  });

  test('searches the words of the messages: every word, as a word start, in one message', async () => {
    const { store, archive, reopen } = await fresh();
    await exchange(
      store,
      'refund',
      'user:a',
      0,
      T0,
      'How do I get a Refund for order 1234?',
      'Refunds take five days.',
    );
    await exchange(store, 'café', 'user:b', 0, T0 + 1_000, 'Is the café open on Sunday?', 'Yes, from nine.');
    await exchange(store, 'other', 'user:c', 0, T0 + 2_000, 'Tell me a joke', 'Order, order!');
    const found = async (q: string) =>
      (await archive.conversations({ limit: 10, q })).conversations.map((c) => c.sessionId);
    expect(await found('refund')).toEqual(['refund']);
    expect(await found('REFUND order')).toEqual(['refund']);
    // A word start finds the longer word; the answer's words count too.
    expect(await found('refu')).toEqual(['refund']);
    expect(await found('five days')).toEqual(['refund']);
    expect(await found('order')).toEqual(['other', 'refund']);
    expect(await found('café sunday')).toEqual(['café']);
    // Both words, but not in one message.
    expect(await found('joke order')).toEqual([]);
    expect(await found('nothing-like-it')).toEqual([]);
    // Query syntax is no syntax: quotes, stars and operators are separators.
    expect(await found('"refund"* ^ (')).toEqual(['refund']);
    // With rating and cursor at once, and after a restart (the index is kept).
    await store.setFeedback('other', 'other-a0', { rating: 'down' });
    expect(
      (await archive.conversations({ limit: 10, q: 'order', rating: 'down' })).conversations,
    ).toHaveLength(1);
    if (reopen) {
      const again = archiveOf(await reopen())!;
      expect((await again.conversations({ limit: 10, q: 'sunday' })).conversations[0]?.sessionId).toBe(
        'café',
      );
    }
  });

  test('reads a conversation whole, every part as stored, feedback included', async () => {
    const { store, archive } = await fresh();
    const call: ChatMessage = {
      id: 's-a0',
      role: 'assistant',
      createdAt: T0 + 1_000,
      status: 'complete',
      parts: [
        {
          type: 'tool_call',
          callId: 'c1',
          name: 'get_time',
          arguments: { zone: 'UTC' },
          status: 'done',
          result: { content: [{ type: 'text', text: '09:00' }] },
        } as unknown as ChatMessage['parts'][number],
        { type: 'text', text: 'It is nine.' },
      ],
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    };
    await store.beginTurn('s', message('s-u0', 'user', 'what time is it?', T0), T0, 'user:ann');
    await store.endTurn('s', call, 's-u0');
    await store.setFeedback('s', 's-a0', { rating: 'down', comment: 'late' });
    expect(await archive.conversation('s')).toEqual({
      sessionId: 's',
      visitorId: 'user:ann',
      startedAt: T0,
      messages: [
        message('s-u0', 'user', 'what time is it?', T0),
        { ...call, feedback: { rating: 'down', comment: 'late' } },
      ],
    });
    expect(await archive.conversation('nope')).toBeUndefined();
  });

  test('exports the messages of a range, oldest first, in pages, each line its text', async () => {
    const { store, archive } = await fresh();
    // More than a page (500) inside the range, some on each side of it.
    for (let i = 0; i < 260; i++)
      await exchange(store, `s${i % 7}`, i % 2 ? 'user:odd' : null, i, T0 + i * 60_000);
    const from = T0 + 10 * 60_000;
    const to = T0 + 250 * 60_000;
    const lines = await all(transcriptOf(archive.messages(from, to)));
    expect(lines).toHaveLength(480);
    expect(lines[0]).toEqual({
      sessionId: 's3',
      // A session's owner is the one its first message was stored with (i = 3: odd).
      visitorId: 'user:odd',
      messageId: 's3-u10',
      role: 'user',
      createdAt: from,
      text: 'question 10',
    });
    expect(lines.at(-1)).toMatchObject({
      messageId: 's4-a249',
      role: 'assistant',
      visitorId: null,
      text: 'answer 249',
    });
    expect(lines.map((l) => l.createdAt)).toEqual([...lines.map((l) => l.createdAt)].sort((a, b) => a - b));
    expect(new Set(lines.map((l) => l.messageId)).size).toBe(480);
    expect(await all(transcriptOf(archive.messages(to + DAY, to + 2 * DAY)))).toEqual([]);
  });

  test('erases a visitor: every conversation, its feedback and images; other visitors untouched', async () => {
    const { store, archive, reopen } = await fresh();
    await exchange(store, 'a1', 'user:gone', 0, T0, 'secret words');
    await exchange(store, 'a2', 'user:gone', 0, T0 + 1_000);
    await store.setFeedback('a1', 'a1-a0', { rating: 'down', comment: 'mine' });
    await store.grantTool('a1', 'get_time');
    await store.putImage({
      id: 'img1',
      sessionId: 'a1',
      mimeType: 'image/png',
      width: 1,
      height: 1,
      bytes: 3,
      data: Buffer.from('png'),
      createdAt: T0,
    });
    await exchange(store, 'kept', 'user:stays', 0, T0 + 2_000, 'secret too');
    // A turn still running is erased too: its answer then has nowhere to go.
    await store.beginTurn(
      'a3',
      message('a3-u0', 'user', 'still asking', T0 + 3_000),
      T0 + 3_000,
      'user:gone',
    );
    expect((await archive.eraseVisitor('user:gone')).sort()).toEqual(['a1', 'a2', 'a3']);
    expect(await store.endTurn('a3', message('a3-a0', 'assistant', 'late', T0 + 4_000), 'a3-u0')).toBe(false);
    const check = async (s: HistoryStore, a: ConversationArchive) => {
      expect((await a.conversations({ limit: 10 })).conversations.map((c) => c.sessionId)).toEqual(['kept']);
      expect(
        (await a.conversations({ limit: 10, q: 'secret' })).conversations.map((c) => c.sessionId),
      ).toEqual(['kept']);
      for (const id of ['a1', 'a2', 'a3']) {
        expect(await a.conversation(id)).toBeUndefined();
        expect(await s.hasSession(id)).toBe(false);
      }
      expect(await s.getImage('img1')).toBeUndefined();
      expect(await s.grantedTools('a1')).toEqual([]);
      expect((await all(transcriptOf(a.messages(0, T0 + DAY)))).map((l) => l.sessionId)).toEqual([
        'kept',
        'kept',
      ]);
    };
    await check(store, archive);
    if (reopen) {
      const again = await reopen();
      await check(again, archiveOf(again)!);
    }
    expect(await archive.eraseVisitor('user:nobody')).toEqual([]);
  });

  test("keeps turns' timings for stored answers only, read by the time the turn ended, erased with their conversation", async () => {
    const { store, archive } = await fresh();
    await exchange(store, 's', 'user:a', 0, T0);
    await exchange(store, 't', 'user:b', 0, T0 + DAY);
    const timing = (sessionId: string, messageId: string, at: number, firstTokenMs: number | null) => ({
      sessionId,
      messageId,
      at,
      firstTokenMs,
      model: 'gpt-test',
    });
    await archive.recordTurn(timing('s', 's-a0', T0 + 1_000, 420));
    await archive.recordTurn(timing('s', 's-a0', T0 + 1_000, 480));
    await archive.recordTurn(timing('t', 't-a0', T0 + DAY + 1_000, null));
    // No such answer (never stored, or erased): nothing kept.
    await archive.recordTurn(timing('s', 'nope', T0 + 2_000, 100));
    const byTime = async (from: number, to: number) =>
      (await all(archive.timings(from, to))).sort((a, b) => a.at - b.at);
    expect(await byTime(0, T0 + 2 * DAY)).toEqual([
      timing('s', 's-a0', T0 + 1_000, 480),
      timing('t', 't-a0', T0 + DAY + 1_000, null),
    ]);
    expect(await byTime(T0 + DAY, T0 + 2 * DAY)).toEqual([timing('t', 't-a0', T0 + DAY + 1_000, null)]);
    await archive.eraseVisitor('user:a');
    expect((await byTime(0, T0 + 2 * DAY)).map((t) => t.messageId)).toEqual(['t-a0']);
  });

  test('keeps a handoff and the messages written outside turns, even for a session with no message yet', async () => {
    const { store, archive, reopen } = await fresh();
    await exchange(store, 's', 'user:a', 0, T0);
    expect(await archive.handoff('s')).toBeUndefined();
    await archive.setHandoff('s', { state: 'waiting', reason: 'refund', since: T0 + 5_000 }, 'user:a');
    await archive.appendMessage(
      's',
      {
        id: 'op1',
        role: 'operator',
        author: 'Ada',
        parts: [{ type: 'text', text: 'Hello there' }],
        createdAt: T0 + 6_000,
      },
      'user:a',
    );
    await archive.setHandoff(
      's',
      { state: 'active', operator: 'Ada', reason: 'refund', since: T0 + 6_000 },
      'user:a',
    );
    // Asked for before any question: the session is made, with its owner.
    await archive.setHandoff('fresh', { state: 'waiting', since: T0 + 7_000 }, 'anon:b');
    const check = async (s: HistoryStore, a: ConversationArchive) => {
      expect(await a.handoff('s')).toEqual({
        state: 'active',
        operator: 'Ada',
        reason: 'refund',
        since: T0 + 6_000,
      });
      expect(await s.ownerOf('fresh')).toBe('anon:b');
      expect((await s.page('s', { limit: 10 })).messages.map((m) => m.id)).toEqual(['s-u0', 's-a0', 'op1']);
      const listed = async (handoff?: 'waiting' | 'active') =>
        (await a.conversations({ limit: 10, ...(handoff ? { handoff } : {}) })).conversations.map((c) => [
          c.sessionId,
          c.handoff ?? null,
        ]);
      expect(await listed('active')).toEqual([['s', 'active']]);
      expect(await listed('waiting')).toEqual([['fresh', 'waiting']]);
      expect(
        (await a.conversations({ limit: 10, q: 'hello there' })).conversations.map((c) => c.sessionId),
      ).toEqual(['s']);
      // The person's message is the latest activity.
      expect((await a.conversations({ limit: 10 })).conversations[1]).toMatchObject({
        sessionId: 's',
        lastAt: T0 + 6_000,
      });
    };
    await check(store, archive);
    if (reopen) {
      const again = await reopen();
      await check(again, archiveOf(again)!);
    }
    await archive.setHandoff('s', null, 'user:a');
    expect(await archive.handoff('s')).toBeUndefined();
  });

  test('erases conversations idle since before a time, never one with a turn running', async () => {
    const { store, archive } = await fresh();
    await exchange(store, 'stale', 'user:a', 0, T0);
    await exchange(store, 'revived', 'user:a', 0, T0);
    await exchange(store, 'revived', 'user:a', 1, T0 + 40 * DAY);
    await store.beginTurn('running', message('running-u0', 'user', 'hello', T0), T0, 'user:b');
    expect(await archive.eraseIdle(T0 + 30 * DAY)).toEqual(['stale']);
    expect((await archive.conversations({ limit: 10 })).conversations.map((c) => c.sessionId)).toEqual([
      'revived',
      'running',
    ]);
  });
});

describe('PostgreSQL archive, beyond the contract', () => {
  const open = async (url: string) => {
    const store = await PostgresHistoryStore.open(url, { max: 4 });
    openStores.push(store);
    return { store, archive: archiveOf(store)! };
  };

  test('reads bodies PostgreSQL’s JSON cannot: a NUL, a lone surrogate, a backslash before u0000', async () => {
    const { store, archive } = await open(await (await thePostgres()).createDatabase());
    const question = 'refund\u0000please, path C:\\u0000dir';
    const reply = 'broken \ud83e emoji, five\u0000days';
    await exchange(store, 'odd', 'user:a', 0, T0, question, reply);
    await exchange(store, 'plain', 'user:b', 0, T0 + DAY);
    await store.setFeedback('odd', 'odd-a0', { rating: 'up', comment: 'nul \u0000 here' });
    const found = async (q: string) =>
      (await archive.conversations({ limit: 10, q })).conversations.map((c) => c.sessionId);
    // A NUL separates words, as any character but a letter or digit does.
    expect(await found('refund please')).toEqual(['odd']);
    expect(await found('u0000dir')).toEqual(['odd']);
    expect(await found('emoji five days')).toEqual(['odd']);
    expect(await found('refundplease')).toEqual([]);
    expect((await archive.conversations({ limit: 10, rating: 'up' })).conversations).toEqual([
      {
        sessionId: 'odd',
        visitorId: 'user:a',
        startedAt: T0,
        lastAt: T0 + 1_000,
        messageCount: 2,
        rating: 'up',
      },
    ]);
    const lines = await all(transcriptOf(archive.messages(T0, T0 + 2_000)));
    expect(lines.map((line) => line.text)).toEqual([question, reply]);
    expect((await archive.conversation('odd'))?.messages[1]?.feedback).toEqual({
      rating: 'up',
      comment: 'nul \u0000 here',
    });
  });

  test('keeps a handoff whose reason holds a NUL, and lists by its state', async () => {
    const { archive } = await open(await (await thePostgres()).createDatabase());
    const handoff = { state: 'waiting' as const, reason: 'a person\u0000please', since: T0 };
    await archive.setHandoff('h', handoff, 'anon:v');
    expect(await archive.handoff('h')).toEqual(handoff);
    await archive.appendMessage('h', message('h-u0', 'user', 'hello?', T0 + 1_000), 'anon:v');
    expect((await archive.conversations({ limit: 10, handoff: 'waiting' })).conversations).toEqual([
      {
        sessionId: 'h',
        visitorId: 'anon:v',
        startedAt: T0,
        lastAt: T0 + 1_000,
        messageCount: 1,
        handoff: 'waiting',
      },
    ]);
    await archive.setHandoff('h', null, 'anon:v');
    expect(await archive.handoff('h')).toBeUndefined();
    expect((await archive.conversations({ limit: 10, handoff: 'waiting' })).conversations).toEqual([]);
  });

  test('migration 4 fills in what a database of versions 1 to 3 holds', async () => {
    const url = await (await thePostgres()).createDatabase();
    const before = new pg.Pool({ connectionString: url });
    try {
      await inTransaction(before, (client) =>
        applyMigrations(
          client,
          MIGRATIONS.filter((migration) => migration.version <= 3),
        ),
      );
      const bodies = [
        message('m1', 'user', 'where is my parcel\u0000?', T0),
        { ...message('m2', 'assistant', 'It left the depot.', T0 + 5_000), feedback: { rating: 'down' } },
      ];
      await before.query(
        `INSERT INTO sessions (id, created_at, owner) VALUES ('old', $1, 'user:a'), ('empty', $2, NULL)`,
        [T0, T0 + DAY],
      );
      for (const body of bodies)
        await before.query(`INSERT INTO messages (session_id, id, body) VALUES ('old', $1, $2)`, [
          body.id,
          JSON.stringify(body),
        ]);
    } finally {
      await before.end();
    }
    const { archive } = await open(url);
    expect((await archive.conversations({ limit: 10 })).conversations).toEqual([
      { sessionId: 'empty', visitorId: null, startedAt: T0 + DAY, lastAt: T0 + DAY, messageCount: 0 },
      {
        sessionId: 'old',
        visitorId: 'user:a',
        startedAt: T0,
        lastAt: T0 + 5_000,
        messageCount: 2,
        rating: 'down',
      },
    ]);
    expect((await archive.conversations({ limit: 10, q: 'parc depot' })).conversations).toEqual([]);
    expect((await archive.conversations({ limit: 10, q: 'parc' })).conversations[0]?.sessionId).toBe('old');
    expect((await all(transcriptOf(archive.messages(T0, T0 + DAY)))).map((line) => line.messageId)).toEqual([
      'm1',
      'm2',
    ]);
  });
});
