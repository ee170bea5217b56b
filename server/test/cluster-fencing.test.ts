/**
 * Fencing, in one process: two servers share a real Redis and one history. The owner of a
 * turn is presumed dead (its lease gone, its generation passed, as a takeover leaves
 * them) while it still runs: the other server ends the turn once, as interrupted, and
 * the stale owner can write nothing more, neither frames nor its answer.
 */
import type { ServerFrame } from '@aalis/protocol';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sessionKeys } from '../src/cluster/keys.js';
import { RedisAnswerKeeper } from '../src/cluster/redis-answer-keeper.js';
import { RedisSessionCluster } from '../src/cluster/redis-cluster.js';
import { connectRedis } from '../src/cluster/redis-connections.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import type { AnswerKeeper } from '../src/sessions/answer-keeper.js';
import { completionChunk, sse, textAnswer, usageChunk, type Reply } from './fake-upstream.js';
import { startRedis, type RedisService } from './services/redis.js';
import { startServer, type Harness } from './ws-harness.js';

const LEASE_MS = 600;
const silent = { info: () => {}, warn: () => {}, error: () => {} } as never;

let redis: RedisService;
let admin: Redis;
const servers: Harness[] = [];
const clusters: RedisSessionCluster[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const cluster of clusters) await cluster.close();
  admin.disconnect();
  await redis.stop();
});

async function serverOn(store: MemoryHistoryStore, replies: Reply[], keeper?: AnswerKeeper) {
  const cluster = new RedisSessionCluster(await connectRedis(redis.url, silent), silent, {
    leaseMs: LEASE_MS,
  });
  clusters.push(cluster);
  const server = await startServer({ replies, cluster, store, ...(keeper ? { answers: { keeper } } : {}) });
  servers.push(server);
  return server;
}

test('a stale owner is fenced: one interrupted answer for everyone, nothing written by the owner after', async () => {
  const store = new MemoryHistoryStore();
  const words = Array.from({ length: 60 }, (_, i) => completionChunk({ content: `w${i} ` }));
  const slow = sse([
    completionChunk({ role: 'assistant', content: '' }),
    ...words,
    completionChunk({}, 'stop'),
    usageChunk(1, 60),
  ]);
  const owner = await serverOn(store, [{ body: slow, byEvent: true, delayMs: 50 }]);
  const other = await serverOn(store, [{ body: textAnswer('Next.') }]);
  const a = await owner.connect();
  const { sessionId } = await a.hello();
  const b = await other.connect();
  await b.hello(sessionId);
  a.send({ type: 'send', text: 'talk slowly' });
  await b.next((f) => f.type === 'stream' && Boolean(f.contentDelta));

  // What a takeover leaves: the lease gone, the generation set to another claim's token.
  const keys = sessionKeys('aalis:', sessionId);
  await admin.multi().del(keys.lease).set(keys.generation, 'another-instance:another-claim').exec();

  const ended = await b.turnEnd();
  expect(ended.message).toMatchObject({ status: 'error', error: { code: 'interrupted' } });
  const fromA = await a.turnEnd();
  expect(fromA.message.id).toBe(ended.message.id);
  // The stale owner's own answer never reaches a tab, nor the history.
  await new Promise((r) => setTimeout(r, LEASE_MS * 3));
  const finals = (tab: { frames: ServerFrame[] }) => tab.frames.filter((f) => f.type === 'message');
  expect(finals(a)).toHaveLength(1);
  expect(finals(b)).toHaveLength(1);
  const history = (await store.page(sessionId, { limit: 10 })).messages;
  expect(history.map((m) => [m.role, m.status ?? null, m.error?.code ?? null])).toEqual([
    ['user', null, null],
    ['assistant', 'error', 'interrupted'],
  ]);
  // The answer so far was kept in the interrupted message.
  expect(history[1]!.parts[0]).toMatchObject({ type: 'text' });

  // And the session goes on.
  b.send({ type: 'send', text: 'again' });
  expect((await b.turnEnd(b.frames.length)).message.status).toBe('complete');
}, 30_000);

test('a turn whose instance died with no tab left is marked failed by the next look of any instance', async () => {
  const store = new MemoryHistoryStore();
  // What a dead instance leaves: the question stored, its turn marked running, no lease.
  await store.beginTurn('orphan-session', { id: 'turn_dead', role: 'user', parts: [], createdAt: 1 }, 1);
  await serverOn(store, []);
  const messages = async () => (await store.page('orphan-session', { limit: 10 })).messages;
  await expect
    .poll(async () => (await messages()).length, { timeout: LEASE_MS * 12 })
    .toBeGreaterThanOrEqual(2);
  expect((await messages()).map((m) => [m.role, m.status ?? null, m.error?.code ?? null])).toEqual([
    ['user', null, null],
    ['assistant', 'error', 'interrupted'],
  ]);
}, 30_000);

test('a new turn that finds the turn before never ended (its owner died unnoticed) ends it for its tabs first', async () => {
  const store = new MemoryHistoryStore();
  const server = await serverOn(store, [{ body: textAnswer('Fresh.') }]);
  const tab = await server.connect();
  const { sessionId } = await tab.hello();
  // What a dead owner leaves when no instance noticed: its question stored and marked
  // running, its claim's generation not ended, its lease run out.
  await store.beginTurn(sessionId, { id: 'turn_dead', role: 'user', parts: [], createdAt: 1 }, 1);
  await admin.set(sessionKeys('aalis:', sessionId).generation, 'dead-instance:turn_dead');
  const from = tab.frames.length;
  tab.send({ type: 'send', text: 'hello again' });
  const end = await tab.turnEnd(from);
  expect(end.message.status).toBe('error');
  expect(end.message.error?.code).toBe('interrupted');
  const next = await tab.turnEnd(tab.frames.indexOf(end) + 1);
  expect(next.message.status).toBe('complete');
  const order = tab.frames.slice(from).map((f) => f.type);
  expect(order.indexOf('message')).toBeLessThan(order.indexOf('user_message'));
  const history = (await store.page(sessionId, { limit: 10 })).messages;
  expect(history.map((m) => [m.role, m.status ?? null])).toEqual([
    ['user', null],
    ['assistant', 'error'],
    ['user', null],
    ['assistant', 'complete'],
  ]);
}, 30_000);

test("a dead owner's answer, kept while the history refused it, is what ends its turn: stored whole, sent to the tabs", async () => {
  const store = new MemoryHistoryStore();
  const keeper = new RedisAnswerKeeper(admin, silent);
  const server = await serverOn(store, [{ body: textAnswer('Fresh.') }], keeper);
  const tab = await server.connect();
  const { sessionId } = await tab.hello();
  // The owner finished its answer, could not store it (the history was down), kept it,
  // and died: its turn is still marked running, its claim never ended.
  await store.beginTurn(sessionId, { id: 'turn_kept', role: 'user', parts: [], createdAt: 1 }, 1);
  const answer = {
    id: 'msg_kept',
    role: 'assistant' as const,
    parts: [{ type: 'text' as const, text: 'Kept whole.' }],
    createdAt: 2,
    status: 'complete' as const,
  };
  await keeper.keep({ sessionId, turnId: 'turn_kept', message: answer, keptAt: 2 });
  await admin.set(sessionKeys('aalis:', sessionId).generation, 'dead-instance:turn_kept');
  const from = tab.frames.length;
  tab.send({ type: 'send', text: 'are you there?' });
  const end = await tab.turnEnd(from);
  expect(end.message).toMatchObject({ id: 'msg_kept', status: 'complete', parts: answer.parts });
  expect((await tab.turnEnd(tab.frames.indexOf(end) + 1)).message.status).toBe('complete');
  const history = (await store.page(sessionId, { limit: 10 })).messages;
  expect(history.map((m) => [m.role, m.status ?? null])).toEqual([
    ['user', null],
    ['assistant', 'complete'],
    ['user', null],
    ['assistant', 'complete'],
  ]);
  expect(await keeper.list(sessionId)).toEqual([]);
}, 30_000);
