/**
 * `hello` as an abuser and as bad luck would send it. What must hold: one socket cannot
 * make a hundred sessions (hello is rate limited and writes nothing: a session is stored
 * with its first message), and a hello the server cannot answer gets an error and a
 * close that tells the client to come back, never an open, unbound socket.
 */
import { afterEach, expect, test } from 'vitest';
import { SqliteHistoryStore } from '../../src/history/sqlite-store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textAnswer } from '../fake-upstream.js';
import { startServer, type Harness } from '../ws-harness.js';

let server: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a hundred hellos on one socket: rate limited after ten, and not one session row written', async () => {
  dir = mkdtempSync(join(tmpdir(), 'aalis-hello-'));
  const store = new SqliteHistoryStore(dir);
  server = await startServer({ replies: [{ body: textAnswer('Hi.') }], store });
  const client = await server.connect();
  for (let i = 0; i < 100; i++) client.send({ type: 'hello', protocol: 1 });
  // One answer per hello, in order: the hundredth frame answers the last one.
  await client.next(() => true, { from: 99 });
  const readies = client.of('ready');
  expect(readies).toHaveLength(10);
  const limited = client.of('error').filter((e) => e.code === 'rate_limited');
  expect(limited).toHaveLength(90);
  // When to try again, for the widget to say in the visitor's language.
  expect(limited[0]!.retryInMs).toBeGreaterThan(59_000);
  for (const ready of readies) expect(await store.hasSession(ready.sessionId)).toBe(false);
  // Still bound to the last session it got, and it works.
  client.send({ type: 'send', text: 'hello' });
  expect((await client.turnEnd()).message.status).toBe('complete');
  expect(await store.hasSession(readies.at(-1)!.sessionId)).toBe(true);
  await store.close();
});

test('a hello the store cannot answer gets error storage and close 1013 (come back), not an unbound socket', async () => {
  dir = mkdtempSync(join(tmpdir(), 'aalis-hello-'));
  const store = new SqliteHistoryStore(dir);
  server = await startServer({ store });
  const first = await server.connect();
  const { sessionId } = await first.hello();
  // The database goes away under the server (a disk unmounted, a file removed and locked).
  store.close();
  const client = await server.connect();
  client.send({ type: 'hello', protocol: 1, sessionId });
  const closed = await client.closed;
  expect(closed.code).toBe(1013);
  expect(closed.reason).toMatch(/reconnect/);
  expect(client.of('error')).toEqual([
    expect.objectContaining({ code: 'storage', errorId: expect.stringMatching(/^\w{8}$/) }),
  ]);
  expect(client.of('ready')).toEqual([]);
});
