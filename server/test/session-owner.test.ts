/**
 * Conversations belong to their owner: a session a visitor (signed, or anonymous with its
 * key's id) made opens only for that visitor; anyone else with its id gets a new, empty session, answered as an unknown
 * id is. The binding is stored with the history, so it survives a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync as Database } from 'node:sqlite';
import type { ServerFrame } from '@aalis/protocol';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import { DemoProvider } from '../src/providers/demo/index.js';
import { SessionHub } from '../src/sessions/session-hub.js';
import { ToolRegistry } from '../src/tools/define-tool.js';
import { peer } from './hub-peer.js';

const provider = new DemoProvider({ speed: 0 });
afterAll(() => provider.close());
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const logger = { info: () => {}, error: (object: object, message: string) => console.error(message, object) };

function hubOn(dir: string) {
  const store = new SqliteHistoryStore(dir);
  const agent = new Agent({ provider, model: 'demo', tools: new ToolRegistry(), logger });
  return { store, hub: new SessionHub({ agent, store, logger }) };
}

const readyOf = (p: { frames: ServerFrame[] }) =>
  p.frames.filter((f): f is Extract<ServerFrame, { type: 'ready' }> => f.type === 'ready').at(-1)!;

async function converse(hub: SessionHub, p: ReturnType<typeof peer>, sessionId: string) {
  await hub.send(p, sessionId, 'hello there');
  for (let i = 0; i < 200 && !p.frames.some((f) => f.type === 'message'); i++)
    await new Promise((r) => setTimeout(r, 10));
}

const alice = { id: 'user:alice', kind: 'signed' as const };
const mallory = { id: 'user:mallory', kind: 'signed' as const };

describe('a session belongs to the visitor who made it', () => {
  test('another visitor with its id gets a new, empty session, answered as an unknown id is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-owner-'));
    dirs.push(dir);
    const { hub, store } = hubOn(dir);
    const a = peer(alice);
    const id = await hub.hello(a, undefined);
    await converse(hub, a, id);

    const m = peer(mallory);
    const foreign = await hub.hello(m, id);
    const stranger = peer(mallory);
    await hub.hello(stranger, 'an-id-nobody-has-0000000');
    expect(foreign).not.toBe(id);
    const shape = (r: ReturnType<typeof readyOf>) => ({ ...r, sessionId: 'x', serverTime: 0 });
    expect(shape(readyOf(m))).toEqual(shape(readyOf(stranger)));
    expect(readyOf(m)).toMatchObject({ resumed: false, messages: [] });
    // An anonymous visitor (or a server without identity) is a stranger too.
    expect(await hub.hello(peer(), id)).not.toBe(id);
    expect(await hub.hello(peer({ id: 'anon:1', kind: 'anonymous' }), id)).not.toBe(id);

    // Its owner opens it, with the conversation.
    const again = peer(alice);
    expect(await hub.hello(again, id)).toBe(id);
    expect(readyOf(again)).toMatchObject({ resumed: true });
    expect(readyOf(again).messages.map((msg) => msg.role)).toEqual(['user', 'assistant']);
    await store.close();
  });

  test('the binding survives a restart; sessions made without identity open for their id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-owner-'));
    dirs.push(dir);
    const first = hubOn(dir);
    const a = peer(alice);
    const owned = await first.hub.hello(a, undefined);
    await converse(first.hub, a, owned);
    const anon = peer();
    const open = await first.hub.hello(anon, undefined);
    await converse(first.hub, anon, open);
    await first.store.close();

    const second = hubOn(dir);
    expect(await second.hub.hello(peer(mallory), owned)).not.toBe(owned);
    expect(await second.hub.hello(peer(alice), owned)).toBe(owned);
    expect(await second.hub.hello(peer(mallory), open)).toBe(open);
    await second.store.close();
  });

  test('an anonymous visitor owns its sessions too; another anonymous visitor with the id gets a new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-owner-'));
    dirs.push(dir);
    const visitor = { id: 'anon:AAAAAAAAAAAAAAAAAAAAAA', kind: 'anonymous' as const };
    const other = { id: 'anon:BBBBBBBBBBBBBBBBBBBBBB', kind: 'anonymous' as const };
    const first = hubOn(dir);
    const a = peer(visitor);
    const id = await first.hub.hello(a, undefined);
    await converse(first.hub, a, id);
    expect(await first.store.ownerOf(id)).toBe(visitor.id);
    expect(await first.hub.hello(peer(other), id)).not.toBe(id);
    expect(await first.hub.hello(peer(alice), id)).not.toBe(id);
    expect(await first.hub.hello(peer(), id)).not.toBe(id);
    await first.store.close();

    const second = hubOn(dir);
    expect(await second.hub.hello(peer(other), id)).not.toBe(id);
    const back = peer(visitor);
    expect(await second.hub.hello(back, id)).toBe(id);
    expect(readyOf(back).messages.map((msg) => msg.role)).toEqual(['user', 'assistant']);
    await second.store.close();
  });

  test('a session stored without an owner (before anonymous visitors had keys) opens for its id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-owner-'));
    dirs.push(dir);
    const first = hubOn(dir);
    const before = peer();
    const id = await first.hub.hello(before, undefined);
    await converse(first.hub, before, id);
    expect(await first.store.ownerOf(id)).toBeNull();
    await first.store.close();

    const second = hubOn(dir);
    expect(await second.hub.hello(peer({ id: 'anon:AAAAAAAAAAAAAAAAAAAAAA', kind: 'anonymous' }), id)).toBe(
      id,
    );
    expect(await second.hub.hello(peer(alice), id)).toBe(id);
    await second.store.close();
  });

  test('history stored before sessions had owners opens as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-owner-'));
    dirs.push(dir);
    const old = new Database(join(dir, 'aalis.sqlite'));
    old.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL)');
    old.prepare('INSERT INTO sessions (id, created_at) VALUES (?, ?)').run('old-session', 1);
    old.close();
    const store = new SqliteHistoryStore(dir);
    expect(await store.ownerOf('old-session')).toBeNull();
    expect(await store.ownerOf('no-such-session')).toBeUndefined();
    await store.close();
  });
});

describe('on real sockets, with signed visitors', () => {
  test("a visitor's token opens their session; another visitor's token with the same id gets a new one", async () => {
    const { SignJWT } = await import('jose');
    const { startServer } = await import('./ws-harness.js');
    const { fixture } = await import('./fake-upstream.js');
    const secret = 'a-shared-secret-of-at-least-32-bytes!!';
    const token = (sub: string) =>
      new SignJWT({ sub })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('10m')
        .setIssuedAt()
        .sign(new TextEncoder().encode(secret));
    const server = await startServer({
      replies: [{ body: fixture('openai-text-answer.sse') }],
      auth: { mode: 'required', secret },
    });
    try {
      const alice = await server.connect();
      const { sessionId } = await alice.hello(undefined, await token('alice'));
      alice.send({ type: 'send', text: 'hi' });
      await alice.turnEnd();

      const mallory = await server.connect();
      const theirs = await mallory.hello(sessionId, await token('mallory'));
      expect(theirs).toMatchObject({ resumed: false, messages: [] });
      expect(theirs.sessionId).not.toBe(sessionId);

      const back = await server.connect();
      const ours = await back.hello(sessionId, await token('alice'));
      expect(ours).toMatchObject({ sessionId, resumed: true });
      expect(ours.messages).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
