/**
 * Each browser its own anonymous visitor (AALIS_AUTH=optional, no token): the first hello
 * gets a server-signed key in `ready`; a hello with it is the same visitor on every
 * connection (its budget is not reset, its sessions are its own) and after a restart; a
 * forged or altered key is ignored and replaced, never an error.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerFrame } from '@aalis/protocol';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import { ANONYMOUS_KEY_FILE, createAnonymousKeys } from '../src/identity/anonymous-key.js';
import { createVisitorAuth } from '../src/identity/visitor-auth.js';
import { DemoProvider } from '../src/providers/demo/index.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

type ReadyFrame = Extract<ServerFrame, { type: 'ready' }>;
type ErrorFrame = Extract<ServerFrame, { type: 'error' }>;

const demo = new DemoProvider({ speed: 0 });
afterAll(() => demo.close());
const secret = 'a-shared-secret-of-at-least-32-bytes!!';
const KEY_SHAPE = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

let harness: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-anon-'));
  dirs.push(dir);
  return dir;
};

/** A hello with what it is given; resolves with its `ready`. */
async function hello(client: TestClient, more: { sessionId?: string; anonymousKey?: string } = {}) {
  const from = client.frames.length;
  client.send({ type: 'hello', protocol: 1, ...more });
  return client.next((f): f is ReadyFrame => f.type === 'ready', { from });
}

async function converse(client: TestClient, text = 'hello') {
  const from = client.frames.length;
  client.send({ type: 'send', text });
  await client.next((f) => f.type === 'message', { from });
}

describe('anonymous visitors on real sockets', () => {
  test('the first hello gets a key; with it a reconnect is the same visitor, its turns not reset', async () => {
    harness = await startServer({
      provider: demo,
      auth: { mode: 'optional', secret },
      budgets: { anonTurnsPerHour: 1 },
    });
    const first = await harness.connect();
    const ready = await hello(first);
    expect(ready.anonymousKey).toMatch(KEY_SHAPE);
    await converse(first);
    // A later hello of the same connection is the same visitor, with the same key.
    const rebound = await hello(first, { sessionId: ready.sessionId });
    expect(rebound).toMatchObject({
      sessionId: ready.sessionId,
      resumed: true,
      anonymousKey: ready.anonymousKey,
    });
    first.socket.close();

    const second = await harness.connect();
    const again = await hello(second, { sessionId: ready.sessionId, anonymousKey: ready.anonymousKey! });
    expect(again).toMatchObject({ sessionId: ready.sessionId, resumed: true });
    expect(again.anonymousKey).toBeUndefined(); // it has one
    second.send({ type: 'send', text: 'again', clientMessageId: 'm2' });
    const refused = await second.next((f): f is ErrorFrame => f.type === 'error');
    expect(refused).toMatchObject({ code: 'quota_exceeded', limit: 'visitor_turns', clientMessageId: 'm2' });

    // Another browser (no key) has its own budget.
    const other = await harness.connect();
    const theirs = await hello(other);
    expect(theirs.anonymousKey).toMatch(KEY_SHAPE);
    expect(theirs.anonymousKey).not.toBe(ready.anonymousKey);
    await converse(other);
  });

  test('its session reopens for it; another anonymous visitor with the id gets a new, empty one', async () => {
    harness = await startServer({ provider: demo, auth: { mode: 'optional', secret } });
    const owner = await harness.connect();
    const ready = await hello(owner);
    await converse(owner);

    const stranger = await harness.connect();
    const theirs = await hello(stranger, { sessionId: ready.sessionId });
    expect(theirs).toMatchObject({ resumed: false, messages: [] });
    expect(theirs.sessionId).not.toBe(ready.sessionId);
    const withOwnKey = await hello(stranger, {
      sessionId: ready.sessionId,
      anonymousKey: theirs.anonymousKey!,
    });
    expect(withOwnKey.sessionId).not.toBe(ready.sessionId);

    const back = await harness.connect();
    const ours = await hello(back, { sessionId: ready.sessionId, anonymousKey: ready.anonymousKey! });
    expect(ours).toMatchObject({ sessionId: ready.sessionId, resumed: true });
    expect(ours.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  test('a forged or altered key is ignored and replaced: never an error, never a close', async () => {
    harness = await startServer({ provider: demo, auth: { mode: 'optional', secret } });
    const owner = await harness.connect();
    const ready = await hello(owner);
    await converse(owner);
    const key = ready.anonymousKey!;
    const [id, mac] = key.split('.') as [string, string];
    const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    const forgedElsewhere = createAnonymousKeys({ secret: 'another-secret-of-at-least-32-bytes!!!' }).issue()
      .key;
    for (const bad of [
      `${flip(id)}.${mac}`, // another id with this mac
      `${id}.${flip(mac)}`, // an altered mac
      `${id}.${mac}=`, // not the canonical spelling
      id,
      'not a key',
      forgedElsewhere, // signed with another server key
    ]) {
      const client = await harness.connect();
      const answer = await hello(client, { sessionId: ready.sessionId, anonymousKey: bad });
      expect(answer.resumed, bad).toBe(false);
      expect(answer.sessionId).not.toBe(ready.sessionId);
      expect(answer.anonymousKey).toMatch(KEY_SHAPE);
      expect(answer.anonymousKey).not.toBe(key);
      expect(client.frames.some((f) => f.type === 'error')).toBe(false);
      client.send({ type: 'send', text: 'still usable' });
      await client.next((f) => f.type === 'message');
    }
  });

  test('a token wins over a key; the key is never sent to a signed visitor', async () => {
    const { SignJWT } = await import('jose');
    harness = await startServer({ provider: demo, auth: { mode: 'optional', secret } });
    const token = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(secret));
    const anon = await harness.connect();
    const key = (await hello(anon)).anonymousKey!;
    const signed = await harness.connect();
    const from = signed.frames.length;
    signed.send({ type: 'hello', protocol: 1, token, anonymousKey: key });
    const ready = await signed.next((f): f is ReadyFrame => f.type === 'ready', { from });
    expect(ready.anonymousKey).toBeUndefined();
  });

  test('the key survives a server restart on the same data dir, with its session', async () => {
    const dir = tempDir();
    let store = new SqliteHistoryStore(dir);
    harness = await startServer({ provider: demo, store, auth: { mode: 'optional', secret } });
    const first = await harness.connect();
    const ready = await hello(first);
    await converse(first);
    await harness.close();
    harness = undefined;
    store.close();

    store = new SqliteHistoryStore(dir);
    harness = await startServer({ provider: demo, store, auth: { mode: 'optional', secret } });
    const back = await harness.connect();
    const again = await hello(back, { sessionId: ready.sessionId, anonymousKey: ready.anonymousKey! });
    expect(again).toMatchObject({ sessionId: ready.sessionId, resumed: true });
    expect(again.anonymousKey).toBeUndefined();
    expect(again.messages).toHaveLength(2);
    await harness.close();
    harness = undefined;
    store.close();
  });

  test('without a secret (a JWKS), the server key is kept in the data dir (0600) and survives a restart', async () => {
    const dir = tempDir();
    const auth = { mode: 'optional' as const, jwksUrl: 'http://127.0.0.1:9/jwks.json', dataDir: dir };
    harness = await startServer({ provider: demo, auth });
    const ready = await hello(await harness.connect());
    expect(ready.anonymousKey).toMatch(KEY_SHAPE);
    expect(statSync(join(dir, ANONYMOUS_KEY_FILE)).mode & 0o777).toBe(0o600);
    await harness.close();

    harness = await startServer({ provider: demo, connection: { auth: createVisitorAuth(auth) } });
    const again = await hello(await harness.connect(), { anonymousKey: ready.anonymousKey! });
    expect(again.anonymousKey).toBeUndefined();
  });
});

describe('anonymous keys', () => {
  test('a server key from the secret, from the data dir, or random for the process', () => {
    const fromSecret = createAnonymousKeys({ secret }).issue();
    expect(createAnonymousKeys({ secret }).check(fromSecret.key)).toBe(fromSecret.id);
    expect(createAnonymousKeys({ secret: `${secret}!` }).check(fromSecret.key)).toBeUndefined();

    const dir = tempDir();
    const kept = createAnonymousKeys({ dataDir: dir }).issue();
    expect(createAnonymousKeys({ dataDir: dir }).check(kept.key)).toBe(kept.id);
    expect(createAnonymousKeys({ dataDir: tempDir() }).check(kept.key)).toBeUndefined();

    const memory = createAnonymousKeys();
    const inMemory = memory.issue();
    expect(memory.check(inMemory.key)).toBe(inMemory.id);
    expect(createAnonymousKeys().check(inMemory.key)).toBeUndefined();
    expect(memory.issue().id).not.toBe(inMemory.id);
  });
});
