/**
 * What every history store promises (store.ts), checked against each of them: memory,
 * SQLite in a temporary directory, and a real PostgreSQL started for this file. Every
 * test gets an empty store of its own (a fresh directory, a fresh database). Then what
 * only one of them has: SQLite files of older versions, PostgreSQL's migrations and its
 * connection errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, type ChatMessage } from '@aalis/protocol';
import { DatabaseSync as Database } from 'node:sqlite';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { MIGRATIONS, applyMigrations } from '../src/history/postgres-migrations.js';
import { PostgresHistoryStore, databaseLabel, inTransaction } from '../src/history/postgres-store.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import type { HistoryStore } from '../src/history/store.js';
import { startPostgres, type TestPostgres } from './services/postgres.js';
import { freePort } from './services/processes.js';

/** Closed after each test, whatever happened in it. */
const openStores: HistoryStore[] = [];
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-contract-'));
  dirs.push(dir);
  return dir;
};
const track = <T extends HistoryStore>(store: T): T => {
  openStores.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(openStores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let postgres: TestPostgres | undefined;
/** Started once for the file, by the first suite that needs it. */
async function thePostgres(): Promise<TestPostgres> {
  return (postgres ??= await startPostgres());
}
afterAll(async () => {
  await postgres?.stop();
});

interface Backend {
  name: string;
  /** Starts what the backend needs once for the file. */
  setUp?(): Promise<unknown>;
  /** An empty store; `reopen` opens its data again, for backends that keep data. */
  fresh(): Promise<{ store: HistoryStore; reopen?: () => Promise<HistoryStore> }>;
}

const backends: Backend[] = [
  {
    name: 'memory',
    fresh: async () => ({ store: track(new MemoryHistoryStore()) }),
  },
  {
    name: 'SQLite',
    fresh: async () => {
      const dir = tempDir();
      const reopen = async () => track(new SqliteHistoryStore(dir));
      return { store: await reopen(), reopen };
    },
  },
  {
    name: 'PostgreSQL',
    setUp: thePostgres,
    fresh: async () => {
      const url = await (await thePostgres()).createDatabase();
      const reopen = async () => track(await PostgresHistoryStore.open(url, { max: 4 }));
      return { store: await reopen(), reopen };
    },
  },
];

const text = (id: string, role: 'user' | 'assistant' = 'user'): ChatMessage => ({
  id,
  role,
  parts: [{ type: 'text', text: id }],
  createdAt: 1,
});
const answer = (id: string) => text(id, 'assistant');
const ids = (messages: ChatMessage[]) => messages.map((m) => m.id);

describe.each(backends.map((backend) => [backend.name, backend] as const))(
  '%s history store',
  (_, backend) => {
    // Starting PostgreSQL takes a second or two, more with other test files starting theirs.
    beforeAll(async () => {
      await backend.setUp?.();
    }, 60_000);
    const fresh = async () => (await backend.fresh()).store;

    describe('sessions', () => {
      test('exist from their first message, with the owner they were stored with, which never changes', async () => {
        const store = await fresh();
        expect(await store.hasSession('s')).toBe(false);
        expect(await store.ownerOf('s')).toBeUndefined();
        await store.beginTurn('s', text('u0'), 10, 'visitor-a');
        await store.endTurn('s', answer('a0'), 'u0');
        expect(await store.hasSession('s')).toBe(true);
        expect(await store.ownerOf('s')).toBe('visitor-a');
        // A later turn naming another owner changes nothing.
        await store.beginTurn('s', text('u1'), 20, 'visitor-b');
        expect(await store.ownerOf('s')).toBe('visitor-a');
        await store.beginTurn('anonymous', text('v0'), 30);
        expect(await store.ownerOf('anonymous')).toBeNull();
        expect(await store.hasSession('t')).toBe(false);
      });
    });

    describe('turns and pages', () => {
      test('turns are stored in order and paged from the newest back', async () => {
        const store = await fresh();
        for (let i = 0; i < 5; i++) {
          await store.beginTurn('s', text(`u${i}`), i);
          expect(await store.endTurn('s', answer(`a${i}`), `u${i}`)).toBe(true);
        }
        const last = await store.page('s', { limit: 4 });
        expect(ids(last.messages)).toEqual(['u3', 'a3', 'u4', 'a4']);
        expect(last.hasMore).toBe(true);
        const older = await store.page('s', { limit: 4, before: 'u3' });
        expect(ids(older.messages)).toEqual(['u1', 'a1', 'u2', 'a2']);
        expect(older.hasMore).toBe(true);
        expect(await store.page('s', { limit: 4, before: 'u1' })).toEqual({
          messages: [text('u0'), answer('a0')],
          hasMore: false,
        });
        // Exactly `limit` left: no more.
        expect(await store.page('s', { limit: 2, before: 'u1' })).toMatchObject({ hasMore: false });
        expect(await store.page('s', { limit: 100 })).toMatchObject({ hasMore: false });
        expect(await store.page('s', { limit: 4, before: 'nope' })).toEqual({ messages: [], hasMore: false });
        expect(await store.page('s', { limit: 4, before: 'u0' })).toEqual({ messages: [], hasMore: false });
        expect(await store.page('unknown', { limit: 4 })).toEqual({ messages: [], hasMore: false });
      });

      test("a page never holds another session's messages, even before one of that session's ids", async () => {
        const store = await fresh();
        await store.beginTurn('s', text('s-u0'), 1);
        await store.beginTurn('t', text('t-u0'), 2);
        await store.endTurn('s', answer('s-a0'));
        await store.endTurn('t', answer('t-a0'));
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['s-u0', 's-a0']);
        expect(await store.page('s', { limit: 10, before: 't-a0' })).toEqual({
          messages: [],
          hasMore: false,
        });
      });

      test('a message comes back exactly as stored, whatever its text holds', async () => {
        const store = await fresh();
        const question: ChatMessage = {
          id: 'u0',
          role: 'user',
          // A NUL character (which JSONB would refuse), quotes, and text outside the BMP.
          parts: [{ type: 'text', text: 'nul \u0000 "quoted" \\ 漢字 🦊' }],
          createdAt: 1_767_225_600_123,
        };
        const reply: ChatMessage = {
          id: 'a0',
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'thinking' },
            {
              type: 'tool_call',
              callId: 'call_1',
              index: 0,
              name: 'lookup',
              arguments: { query: 'x', nested: [1, 2.5, null, true] },
              status: 'done',
              result: { rows: [] },
              startedAt: 1_767_225_600_200,
              endedAt: 1_767_225_600_300,
            },
            { type: 'text', text: 'done' },
          ],
          createdAt: 1_767_225_600_400,
          status: 'complete',
        };
        await store.beginTurn('s', question, question.createdAt);
        await store.endTurn('s', reply, 'u0');
        expect((await store.page('s', { limit: 10 })).messages).toEqual([question, reply]);
      });
    });

    describe('feedback', () => {
      test('is kept with an answer of the session, replaced by the next, and nowhere else', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 10);
        await store.endTurn('s', answer('a0'), 'u0');
        await store.beginTurn('t', text('v0'), 20);
        await store.endTurn('t', answer('b0'), 'v0');
        expect(await store.setFeedback('s', 'a0', { rating: 'up' })).toEqual({ before: undefined });
        expect(
          await store.setFeedback('s', 'a0', { rating: 'down', comment: 'wrong "order" \\ date ✅' }),
        ).toEqual({ before: { rating: 'up' } });
        // Not a question, not another session's answer, not an answer that does not exist.
        expect(await store.setFeedback('s', 'u0', { rating: 'up' })).toBe(false);
        expect(await store.setFeedback('s', 'b0', { rating: 'up' })).toBe(false);
        expect(await store.setFeedback('s', 'nope', { rating: 'up' })).toBe(false);
        const [question, rated] = (await store.page('s', { limit: 10 })).messages;
        expect(question).toEqual(text('u0'));
        expect(rated).toEqual({
          ...answer('a0'),
          feedback: { rating: 'down', comment: 'wrong "order" \\ date ✅' },
        });
        expect((await store.page('t', { limit: 10 })).messages[1]).toEqual(answer('b0'));
      });

      test('is kept with an answer whose text holds a NUL (which JSONB refuses), the text unchanged', async () => {
        const store = await fresh();
        const odd: ChatMessage = { ...answer('a0'), parts: [{ type: 'text', text: 'nul \u0000 end' }] };
        await store.beginTurn('s', text('u0'), 10);
        await store.endTurn('s', odd, 'u0');
        expect(await store.setFeedback('s', 'a0', { rating: 'up' })).toEqual({ before: undefined });
        expect((await store.page('s', { limit: 10 })).messages[1]).toEqual({
          ...odd,
          feedback: { rating: 'up' },
        });
      });
    });

    describe('conversations of an owner', () => {
      test("are listed newest activity first, titled by name or first question, never another owner's", async () => {
        const store = await fresh();
        await store.beginTurn(
          'old',
          { ...text('o1'), parts: [{ type: 'text', text: 'Where is\nmy   order?' }] },
          10,
          'v1',
        );
        await store.endTurn('old', answer('o2'), 'o1');
        await store.beginTurn('new', text('n1'), 20, 'v1');
        await store.beginTurn('theirs', text('t1'), 30, 'v2');
        await store.beginTurn('nobody', text('x1'), 40);
        const list = await store.listSessions('v1', 10);
        expect(list.map((s) => [s.id, s.title])).toEqual([
          ['new', 'n1'],
          ['old', 'Where is my order?'],
        ]);
        expect(list[0]!.lastActivity).toBe(text('n1').createdAt);
        // The old one gets a message: it comes first.
        await store.beginTurn('old', text('o3'), 50, 'v1');
        expect((await store.listSessions('v1', 10)).map((s) => s.id)).toEqual(['old', 'new']);
        expect((await store.listSessions('v1', 1)).map((s) => s.id)).toEqual(['old']);
        expect(await store.listSessions('v3', 10)).toEqual([]);
      });

      test("a name is the owner's to give; another owner's rename changes nothing", async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u1'), 10, 'v1');
        expect(await store.renameSession('v2', 's', 'stolen')).toBe(false);
        expect(await store.renameSession('v1', 's', 'Lamp order ✅')).toBe(true);
        expect(await store.renameSession('v1', 'nope', 'x')).toBe(false);
        expect((await store.listSessions('v1', 10))[0]!.title).toBe('Lamp order ✅');
      });

      test('delete takes everything of it, only for its owner, never while a turn runs', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u1'), 10, 'v1');
        // Marked running: not yet.
        expect(await store.deleteSession('v1', 's')).toBe(false);
        await store.endTurn('s', answer('a1'), 'u1');
        await store.grantTool('s', 'search');
        expect(await store.deleteSession('v2', 's')).toBe(false);
        expect(await store.hasSession('s')).toBe(true);
        expect(await store.deleteSession('v1', 's')).toBe(true);
        expect(await store.hasSession('s')).toBe(false);
        expect(await store.page('s', { limit: 10 })).toEqual({ messages: [], hasMore: false });
        expect(await store.grantedTools('s')).toEqual([]);
        expect(await store.listSessions('v1', 10)).toEqual([]);
        expect(await store.deleteSession('v1', 's')).toBe(false);
        // The id can start a new session afterwards.
        await store.beginTurn('s', text('u2'), 20, 'v1');
        expect((await store.page('s', { limit: 10 })).messages).toEqual([text('u2')]);
      });
    });

    describe('images', () => {
      const image = (
        id: string,
        sessionId: string,
        createdAt: number,
        data = Buffer.from([0x89, 0x50, 0, 255, 1]),
      ) => ({
        id,
        sessionId,
        mimeType: 'image/png' as const,
        width: 3,
        height: 2,
        bytes: data.length,
        data,
        createdAt,
      });

      test('come back byte for byte, counted per session, before the session has a message', async () => {
        const store = await fresh();
        // Every byte value survives, NUL and 0xff included.
        const data = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
        await store.putImage(image('img_a', 's', 10, data));
        await store.putImage(image('img_b', 's', 11));
        await store.putImage(image('img_c', 'other', 12));
        const back = await store.getImage('img_a');
        expect(back).toEqual(image('img_a', 's', 10, data));
        expect(Buffer.compare(back!.data, data)).toBe(0);
        expect(await store.getImage('img_none')).toBeUndefined();
        expect(await store.countImages('s')).toBe(2);
        // Their refs, no bytes, only the session's own.
        const refs = await store.imageRefs('s', ['img_b', 'img_c', 'img_a', 'img_none']);
        expect(refs.sort((x, y) => x.id.localeCompare(y.id))).toEqual([
          { id: 'img_a', mimeType: 'image/png', width: 3, height: 2, bytes: 256 },
          { id: 'img_b', mimeType: 'image/png', width: 3, height: 2, bytes: 5 },
        ]);
        expect(await store.countImages('other')).toBe(1);
        expect(await store.countImages('nobody')).toBe(0);
      });

      test('those no message names go after a while, whether their session has messages or not', async () => {
        const store = await fresh();
        const ref = { id: 'img_kept', mimeType: 'image/png' as const, width: 3, height: 2, bytes: 5 };
        await store.putImage(image('img_kept', 'kept', 10));
        await store.putImage(image('img_removed', 'kept', 10));
        await store.beginTurn('kept', { ...text('u1'), images: [ref] }, 10, 'v1');
        await store.putImage(image('img_old', 'never', 10));
        await store.putImage(image('img_new', 'never', 50));
        expect(await store.dropOrphanImages(20)).toBe(2);
        expect(await store.getImage('img_old')).toBeUndefined();
        expect(await store.getImage('img_removed')).toBeUndefined();
        expect(await store.getImage('img_new')).toBeDefined();
        expect(await store.getImage('img_kept')).toBeDefined();
      });

      test('those no message names are summed by their bytes, whatever their age or session', async () => {
        const store = await fresh();
        expect(await store.unsentImageBytes()).toBe(0);
        const ref = { id: 'img_sent', mimeType: 'image/png' as const, width: 3, height: 2, bytes: 5 };
        await store.putImage(image('img_sent', 's', 10));
        await store.putImage(image('img_unsent', 's', 10, Buffer.alloc(300)));
        await store.putImage(image('img_other', 'other', 99, Buffer.alloc(7)));
        await store.beginTurn('s', { ...text('u1'), images: [ref] }, 10, 'v1');
        // A message names an image of its own session only.
        await store.beginTurn('third', { ...text('u2'), images: [{ ...ref, id: 'img_other' }] }, 10, 'v1');
        expect(await store.unsentImageBytes()).toBe(307);
        expect(await store.dropOrphanImages(50)).toBe(1);
        expect(await store.unsentImageBytes()).toBe(7);
      });

      test('go with their session when it is deleted', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u1'), 10, 'v1');
        await store.endTurn('s', answer('a1'), 'u1');
        await store.putImage(image('img_a', 's', 10));
        await store.putImage(image('img_b', 'other', 10));
        expect(await store.deleteSession('v1', 's')).toBe(true);
        expect(await store.getImage('img_a')).toBeUndefined();
        expect(await store.countImages('s')).toBe(0);
        expect(await store.getImage('img_b')).toBeDefined();
      });
    });

    describe('ending a turn', () => {
      test('without a turn id ends whichever turn runs; with none running it stores nothing', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        expect(await store.endTurn('s', answer('a0'))).toBe(true);
        expect(await store.endTurn('s', answer('extra'))).toBe(false);
        expect(await store.endTurn('never-started', answer('lost'))).toBe(false);
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['u0', 'a0']);
        expect(await store.hasSession('never-started')).toBe(false);
      });

      test("another turn's id stores nothing and leaves the mark for the turn's own end", async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        expect(await store.endTurn('s', answer('wrong'), 'not-this-turn')).toBe(false);
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['u0']);
        expect(await store.endTurn('s', answer('a0'), 'u0')).toBe(true);
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['u0', 'a0']);
      });

      test('a turn ends once: the second endTurn returns false and stores nothing', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        expect(await store.endTurn('s', answer('a0'), 'u0')).toBe(true);
        expect(await store.endTurn('s', answer('a0-again'), 'u0')).toBe(false);
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['u0', 'a0']);
      });

      test("a stale owner ending turn 1 after turn 2 began leaves turn 2's mark alone", async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u1'), 1);
        // The session's new owner ended turn 1 and began turn 2...
        expect(await store.endTurn('s', answer('a1'), 'u1')).toBe(true);
        await store.beginTurn('s', text('u2'), 2);
        // ...when the old owner, still running turn 1, tries to end it.
        expect(await store.endTurn('s', answer('a1-stale'), 'u1')).toBe(false);
        expect(await store.endTurn('s', answer('a2'), 'u2')).toBe(true);
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['u1', 'a1', 'u2', 'a2']);
      });

      test('when two instances end the same turn at once, exactly one answer is stored', async () => {
        const { store, reopen } = await backend.fresh();
        // Two connections to the same data where the backend keeps any; else the one store.
        const other = (await reopen?.()) ?? store;
        await store.beginTurn('s', text('u0'), 1);
        const ended = await Promise.all([
          store.endTurn('s', answer('a-first'), 'u0'),
          other.endTurn('s', answer('a-second'), 'u0'),
        ]);
        expect(ended.filter(Boolean)).toHaveLength(1);
        const { messages } = await store.page('s', { limit: 10 });
        expect(messages).toHaveLength(2);
        expect(messages[1]!.id).toBe(ended[0] ? 'a-first' : 'a-second');
      });
    });

    describe('turns left without an answer', () => {
      test('a turn whose answer was never stored is marked failed by the next turn, never overwritten', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 500);
        // The answer could not be stored (a full disk); the server ran on.
        await store.beginTurn('s', text('u1'), 900);
        // A late answer to the first turn is too late: its mark was resolved.
        expect(await store.endTurn('s', answer('a0-late'), 'u0')).toBe(false);
        expect(await store.endTurn('s', answer('a1'), 'u1')).toBe(true);
        const { messages } = await store.page('s', { limit: 10 });
        // The server ran on: it was the storing that failed, and the stand-in says so.
        expect(messages.map((m) => [m.role, m.status, m.error?.code])).toEqual([
          ['user', undefined, undefined],
          ['assistant', 'error', ErrorCode.Storage],
          ['user', undefined, undefined],
          ['assistant', undefined, undefined],
        ]);
        expect(messages[1]!.createdAt).toBe(500);
        expect(await store.recoverInterruptedTurns()).toBe(0);
      });

      test('a turn a crash left running becomes a failed assistant message, once', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 500);
        await store.beginTurn('t', text('v0'), 600);
        await store.endTurn('t', answer('b0'), 'v0');
        expect(await store.recoverInterruptedTurns()).toBe(1);
        expect(await store.recoverInterruptedTurns()).toBe(0);
        const { messages } = await store.page('s', { limit: 10 });
        expect(messages.map((m) => [m.role, m.status, m.error?.code])).toEqual([
          ['user', undefined, undefined],
          ['assistant', 'error', ErrorCode.Interrupted],
        ]);
        expect(messages[1]!.createdAt).toBe(500);
        // The recovered turn is over: its own answer, arriving now, is not stored.
        expect(await store.endTurn('s', answer('a0'), 'u0')).toBe(false);
        expect(ids((await store.page('t', { limit: 10 })).messages)).toEqual(['v0', 'b0']);
      });

      test('recovery leaves alone the turns that still run elsewhere', async () => {
        const store = await fresh();
        await store.beginTurn('elsewhere', text('e0'), 1);
        await store.beginTurn('crashed', text('c0'), 2);
        const asked: string[] = [];
        const stillRunning = async (sessionId: string) => {
          asked.push(sessionId);
          return sessionId === 'elsewhere';
        };
        expect(await store.recoverInterruptedTurns(stillRunning)).toBe(1);
        expect(asked.sort()).toEqual(['crashed', 'elsewhere']);
        // The turn running elsewhere ends normally; the crashed one was resolved.
        expect(await store.endTurn('elsewhere', answer('e-answer'), 'e0')).toBe(true);
        expect(await store.endTurn('crashed', answer('c-answer'), 'c0')).toBe(false);
        const crashed = (await store.page('crashed', { limit: 10 })).messages;
        expect(crashed.map((m) => m.error?.code)).toEqual([undefined, ErrorCode.Interrupted]);
        expect(await store.recoverInterruptedTurns(stillRunning)).toBe(0);
      });

      test('recovery leaves alone a turn that ended while it was asking whether it still runs', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        const stillRunning = async (sessionId: string) => {
          // The owner elsewhere finishes the turn (and starts the next) just now.
          await store.endTurn(sessionId, answer('a0'), 'u0');
          await store.beginTurn(sessionId, text('u1'), 2);
          return false;
        };
        expect(await store.recoverInterruptedTurns(stillRunning)).toBe(0);
        expect(await store.endTurn('s', answer('a1'), 'u1')).toBe(true);
        expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['u0', 'a0', 'u1', 'a1']);
      });
    });

    describe('tool executions', () => {
      test('a call is recorded once: starting it again is refused, even after it ended', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        const call = { sessionId: 's', turnId: 'u0', callId: 'call_1', name: 'lookup', at: 10 };
        expect(await store.toolStarting(call)).toBe(true);
        expect(await store.toolStarting({ ...call, at: 11 })).toBe(false);
        await store.toolEnded('s', 'u0', 'call_1', 'done', 12);
        expect(await store.toolStarting({ ...call, at: 13 })).toBe(false);
        // The same call id in another turn is another call.
        await store.endTurn('s', answer('a0'), 'u0');
        await store.beginTurn('s', text('u1'), 20);
        expect(await store.toolStarting({ ...call, turnId: 'u1', at: 21 })).toBe(true);
      });

      test('the calls started and never ended are listed, per turn, in the order they started', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        const start = (callId: string, at: number, turnId = 'u0') =>
          store.toolStarting({ sessionId: 's', turnId, callId, name: 'tool', at });
        expect(await store.unfinishedTools('s', 'u0')).toEqual([]);
        await start('call_b', 10);
        await start('call_a', 11);
        await start('call_c', 12);
        // A turn that is not the one running runs no tools (fencing).
        expect(await start('call_x', 13, 'another-turn')).toBe(false);
        expect(await store.unfinishedTools('s', 'u0')).toEqual(['call_b', 'call_a', 'call_c']);
        await store.toolEnded('s', 'u0', 'call_a', 'done', 20);
        await store.toolEnded('s', 'u0', 'call_c', 'error', 21);
        // An ending reported twice, or for a call never recorded, changes nothing.
        await store.toolEnded('s', 'u0', 'call_a', 'error', 22);
        await store.toolEnded('s', 'u0', 'never-started', 'done', 23);
        expect(await store.unfinishedTools('s', 'u0')).toEqual(['call_b']);
        expect(await store.unfinishedTools('s', 'another-turn')).toEqual([]);
        expect(await store.unfinishedTools('other-session', 'u0')).toEqual([]);
        // Once the turn ended (here or on another instance), none of its calls starts.
        await store.endTurn('s', text('a0', 'assistant'), 'u0');
        expect(await start('call_late', 30)).toBe(false);
      });
    });

    describe('grants', () => {
      test('are kept per session, once each', async () => {
        const store = await fresh();
        await store.beginTurn('s', text('u0'), 1);
        await store.beginTurn('t', text('v0'), 1);
        expect(await store.grantedTools('s')).toEqual([]);
        await store.grantTool('s', 'write_file');
        await store.grantTool('s', 'fetch');
        await store.grantTool('s', 'write_file');
        await store.grantTool('t', 'shell');
        expect(await store.grantedTools('s')).toEqual(['fetch', 'write_file']);
        expect(await store.grantedTools('t')).toEqual(['shell']);
        expect(await store.grantedTools('unknown')).toEqual([]);
      });
    });

    test('close can be called twice', async () => {
      const store = await fresh();
      await store.close();
      await store.close();
    });

    // Memory keeps nothing across a restart: there is nothing to reopen.
    if (backend.name !== 'memory') {
      test('closing and opening again keeps everything', async () => {
        const { store, reopen } = await backend.fresh();
        await store.beginTurn('s', text('u0'), 100, 'visitor-a');
        await store.endTurn('s', answer('a0'), 'u0');
        await store.grantTool('s', 'fetch');
        await store.beginTurn('s', text('u1'), 200, 'visitor-a');
        await store.toolStarting({ sessionId: 's', turnId: 'u1', callId: 'call_1', name: 'fetch', at: 210 });
        // The process stops with turn u1 running and its tool call unfinished.
        await store.close();

        const again = await reopen!();
        expect(await again.hasSession('s')).toBe(true);
        expect(await again.ownerOf('s')).toBe('visitor-a');
        expect(await again.grantedTools('s')).toEqual(['fetch']);
        expect(await again.unfinishedTools('s', 'u1')).toEqual(['call_1']);
        expect(
          await again.toolStarting({
            sessionId: 's',
            turnId: 'u1',
            callId: 'call_1',
            name: 'fetch',
            at: 300,
          }),
        ).toBe(false);
        expect(await again.recoverInterruptedTurns()).toBe(1);
        const { messages } = await again.page('s', { limit: 10 });
        expect(ids(messages).slice(0, 3)).toEqual(['u0', 'a0', 'u1']);
        expect(messages[3]).toMatchObject({ role: 'assistant', status: 'error', createdAt: 200 });
      });
    }
  },
);

describe('SQLite files from older versions', () => {
  /** The tables as the first released version created them: no owners, marks without turn ids. */
  const oldFile = (dir: string) => {
    const db = new Database(join(dir, 'aalis.sqlite'));
    db.exec(`
      CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL);
      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL
      );
      CREATE TABLE running_turns (session_id TEXT PRIMARY KEY REFERENCES sessions(id), started_at INTEGER NOT NULL);
      CREATE TABLE tool_grants (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        tool TEXT NOT NULL,
        PRIMARY KEY (session_id, tool)
      );
    `);
    for (const session of ['s', 't']) {
      db.prepare('INSERT INTO sessions VALUES (?, 5)').run(session);
      db.prepare('INSERT INTO messages (session_id, id, body) VALUES (?, ?, ?)').run(
        session,
        `${session}-u0`,
        JSON.stringify(text(`${session}-u0`)),
      );
      db.prepare('INSERT INTO running_turns VALUES (?, 5)').run(session);
    }
    db.close();
  };

  test('are brought up to date in place: a mark without a turn id is ended by any turn id', async () => {
    const dir = tempDir();
    oldFile(dir);
    const store = track(new SqliteHistoryStore(dir));
    expect(await store.ownerOf('s')).toBeNull();
    expect(await store.endTurn('s', answer('s-a0'), 's-u0')).toBe(true);
    expect(await store.endTurn('s', answer('s-a0-again'), 's-u0')).toBe(false);
    expect(ids((await store.page('s', { limit: 10 })).messages)).toEqual(['s-u0', 's-a0']);
    // The new table is there, and the mark of 't' is recovered like any other.
    expect(await store.toolStarting({ sessionId: 't', turnId: 't-u0', callId: 'c', name: 'x', at: 6 })).toBe(
      true,
    );
    expect(await store.recoverInterruptedTurns()).toBe(1);
    await store.close();
    // And opened again, nothing is migrated twice.
    const again = track(new SqliteHistoryStore(dir));
    expect(await again.unfinishedTools('t', 't-u0')).toEqual(['c']);
  });
});

describe('PostgreSQL store', () => {
  beforeAll(thePostgres, 60_000);

  const migrationRows = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number; applied_at: Date }>(
        'SELECT version, applied_at FROM aalis_schema_migrations ORDER BY version',
      );
      return rows;
    } finally {
      await client.end();
    }
  };

  test('migrations are applied once: opening the database again changes nothing', async () => {
    const url = await (await thePostgres()).createDatabase();
    const first = track(await PostgresHistoryStore.open(url));
    const applied = await migrationRows(url);
    expect(applied.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await first.beginTurn('s', text('u0'), 1);
    // Applying them again finds nothing to do.
    expect(await inTransaction(first.pool, (client) => applyMigrations(client))).toEqual([]);
    const second = track(await PostgresHistoryStore.open(url));
    expect(await migrationRows(url)).toEqual(applied);
    expect(ids((await second.page('s', { limit: 10 })).messages)).toEqual(['u0']);
  });

  test('two instances opening an empty database at once both succeed', async () => {
    const url = await (await thePostgres()).createDatabase();
    const [one, two] = await Promise.all([PostgresHistoryStore.open(url), PostgresHistoryStore.open(url)]);
    track(one);
    track(two);
    expect((await migrationRows(url)).map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await one.beginTurn('s', text('u0'), 1);
    expect(await two.endTurn('s', answer('a0'), 'u0')).toBe(true);
  });

  test('a failing migration is rolled back whole, and says which one failed', async () => {
    const url = await (await thePostgres()).createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    try {
      const broken = [
        { version: 1, name: 'fine', sql: 'CREATE TABLE fine (id INTEGER)' },
        { version: 2, name: 'broken', sql: 'CREATE TABLE fine (id INTEGER)' },
      ];
      await expect(inTransaction(pool, (client) => applyMigrations(client, broken))).rejects.toThrow(
        /^schema migration 2 \(broken\) failed: relation "fine" already exists$/,
      );
      const { rows } = await pool.query("SELECT to_regclass('fine') AS fine");
      expect(rows).toEqual([{ fine: null }]);
    } finally {
      await pool.end();
    }
  });

  test('an unreachable server is reported at once, in one line, without the password', async () => {
    // Nothing listens there: the connection is refused.
    const port = await freePort();
    const started = Date.now();
    const opening = PostgresHistoryStore.open(`postgres://aalis:s3cret-Pa55@127.0.0.1:${port}/history`);
    await expect(opening).rejects.toThrow(
      new Error(`PostgreSQL at postgres://aalis@127.0.0.1:${port}/history cannot be reached: ECONNREFUSED`),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    // Also by name, when the name stands for more than one address (IPv6 and IPv4).
    await expect(
      PostgresHistoryStore.open(`postgres://aalis:s3cret-Pa55@localhost:${port}/h`),
    ).rejects.toThrow(/^PostgreSQL at postgres:\/\/aalis@localhost:\d+\/h cannot be reached: ECONNREFUSED$/);
  });

  test('a server that refuses is reported with its reason, and a URL that is not one without echoing it', async () => {
    const { url } = await thePostgres();
    const unknown = new URL(url);
    unknown.pathname = '/no_such_database';
    unknown.password = 'hunter2';
    const error = await PostgresHistoryStore.open(unknown.href).catch((thrown: Error) => thrown);
    expect((error as Error).message).toBe(
      `PostgreSQL at postgres://postgres@127.0.0.1:${unknown.port}/no_such_database refused the connection: ` +
        'database "no_such_database" does not exist',
    );
    await expect(PostgresHistoryStore.open('mysql://root:hunter2@db/x')).rejects.toThrow(
      'not a PostgreSQL URL: mysql://root@db:5432/x (expected postgres://user:password@host:port/database)',
    );
    const garbled = await PostgresHistoryStore.open('postgres://root:hunter2@[oops/x').catch((e: Error) => e);
    expect((garbled as Error).message).toMatch(/^not a PostgreSQL URL: \(an unparseable URL\)/);
  });

  test('databaseLabel names the database without password or query', () => {
    expect(databaseLabel('postgres://app:s3cret@db.internal:6432/aalis?sslmode=require&password=x')).toBe(
      'postgres://app@db.internal:6432/aalis',
    );
    expect(databaseLabel('postgresql://db/aalis')).toBe('postgresql://db:5432/aalis');
    expect(databaseLabel('not a url with s3cret')).toBe('(an unparseable URL)');
  });
});
