import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import type { HistoryStore } from '../src/history/store.js';
import { textAnswer } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-history-'));
  dirs.push(dir);
  return dir;
};
let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const message = (id: string, role: 'user' | 'assistant' = 'user'): ChatMessage => ({
  id,
  role,
  parts: [{ type: 'text', text: id }],
  createdAt: 1,
});

describe.each([
  ['memory', () => new MemoryHistoryStore()],
  ['sqlite', () => new SqliteHistoryStore(tempDir())],
])('%s store', (_, make: () => HistoryStore) => {
  test('turns are stored in order and paged from the newest back', async () => {
    const store = make();
    expect(await store.hasSession('s')).toBe(false);
    for (let i = 0; i < 5; i++) {
      await store.beginTurn('s', message(`u${i}`), i);
      await store.endTurn('s', message(`a${i}`, 'assistant'));
    }
    const last = await store.page('s', { limit: 4 });
    expect(last.messages.map((m) => m.id)).toEqual(['u3', 'a3', 'u4', 'a4']);
    expect(last.hasMore).toBe(true);
    const older = await store.page('s', { limit: 4, before: 'u3' });
    expect(older.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(await store.page('s', { limit: 4, before: 'u1' })).toEqual({
      messages: [message('u0'), message('a0', 'assistant')],
      hasMore: false,
    });
    expect(await store.page('s', { limit: 4, before: 'nope' })).toEqual({ messages: [], hasMore: false });
    // The first message stored the session.
    expect(await store.hasSession('s')).toBe(true);
    expect(await store.hasSession('t')).toBe(false);
    await store.close();
  });

  test('a turn whose answer was never stored is marked failed by the next turn, never overwritten', async () => {
    const store = make();
    await store.beginTurn('s', message('u0'), 500);
    // The answer could not be stored (a full disk); the server ran on.
    await store.beginTurn('s', message('u1'), 900);
    await store.endTurn('s', message('a1', 'assistant'));
    const { messages } = await store.page('s', { limit: 10 });
    // The server ran on: it was the storing that failed, and the stand-in says so.
    expect(messages.map((m) => [m.role, m.status, m.error?.code])).toEqual([
      ['user', undefined, undefined],
      ['assistant', 'error', 'storage'],
      ['user', undefined, undefined],
      ['assistant', undefined, undefined],
    ]);
    expect(messages[1]!.createdAt).toBe(500);
    expect(await store.recoverInterruptedTurns()).toBe(0);
    await store.close();
  });

  test('a turn a crash left running becomes a failed assistant message', async () => {
    const store = make();
    await store.beginTurn('s', message('u0'), 500);
    expect(await store.recoverInterruptedTurns()).toBe(1);
    expect(await store.recoverInterruptedTurns()).toBe(0);
    const { messages } = await store.page('s', { limit: 10 });
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', undefined],
      ['assistant', 'error'],
    ]);
    expect(messages[1]!.createdAt).toBe(500);
    await store.close();
  });
});

test('SQLite: a crash mid-turn (the process dies with the turn open) leaves the history consistent on the next start', async () => {
  const dir = tempDir();
  const before = new SqliteHistoryStore(dir);
  await before.beginTurn('s', message('u0'), 5);
  // No endTurn and no close: as if the process had been killed.
  const after = new SqliteHistoryStore(dir);
  expect(await after.recoverInterruptedTurns()).toBe(1);
  expect((await after.page('s', { limit: 10 })).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  await after.close();
  await before.close();
});

test('a server restart with SQLite keeps the history, and older pages load', async () => {
  const dir = tempDir();
  const reply = (text: string) => ({ body: textAnswer(text) });
  server = await startServer({
    replies: [reply('one'), reply('two')],
    store: new SqliteHistoryStore(dir),
    sessions: { historyPageSize: 2 },
  });
  let client = await server.connect();
  const { sessionId } = await client.hello();
  for (const text of ['first', 'second']) {
    const from = client.frames.length;
    client.send({ type: 'send', text });
    await client.turnEnd(from);
  }
  await server.close();
  await server.app.aalis.store.close();

  server = await startServer({ store: new SqliteHistoryStore(dir), sessions: { historyPageSize: 2 } });
  client = await server.connect();
  const ready = await client.hello(sessionId);
  expect(ready.resumed).toBe(true);
  expect(ready.hasMore).toBe(true);
  expect(ready.messages.map((m) => m.parts[0])).toEqual([
    { type: 'text', text: 'second' },
    { type: 'text', text: 'two' },
  ]);
  client.send({ type: 'history', before: ready.messages[0]!.id, limit: 10 });
  const older = await client.next((f) => f.type === 'history');
  expect(older).toMatchObject({ hasMore: false });
  expect(client.view.messages.map((m) => (m.parts[0] as { text: string }).text)).toEqual([
    'first',
    'one',
    'second',
    'two',
  ]);
  await server.app.aalis.store.close();
});
