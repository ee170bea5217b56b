/**
 * The owner's console on one instance, the visitor on another, all on a real Redis.
 * Erasing a visitor while its turn runs elsewhere: the turn stops, every tab of the
 * visitor's conversations leaves them, and nothing of the visitor stays in Redis (its
 * sessions' logs and snapshots, its budget counts), while another visitor's keys stay.
 * A handoff: the visitor asks on one instance, the person answers and releases from the
 * other; every tab on both hears each step, and the model stays silent meanwhile.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisBudgetStore } from '../src/budgets/redis-budget-store.js';
import { RedisSessionCluster } from '../src/cluster/redis-cluster.js';
import { connectRedis, type RedisConnections } from '../src/cluster/redis-connections.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { completionChunk, sse, textAnswer, usageChunk, type Reply } from './fake-upstream.js';
import { startRedis, type RedisService } from './services/redis.js';
import { startServer, type Harness } from './ws-harness.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} } as never;
const ADMIN = 'owner-token-0123456789';
const SECRET = 'a-shared-secret-of-the-cluster-0123456789';
let redis: RedisService;
let probe: RedisConnections;
const servers: Harness[] = [];
const clusters: RedisSessionCluster[] = [];

beforeAll(async () => {
  redis = await startRedis();
  probe = await connectRedis(redis.url, silent);
});
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const cluster of clusters) await cluster.close();
  await probe?.close();
  await redis.stop();
});

async function instance(store: MemoryHistoryStore, replies: Reply[]) {
  const connections = await connectRedis(redis.url, silent);
  const cluster = new RedisSessionCluster(connections, silent, { leaseMs: 1_000 });
  clusters.push(cluster);
  const server = await startServer({
    replies,
    cluster,
    store,
    adminToken: ADMIN,
    // Anonymous visitors known to every instance (one key), their budgets counted in Redis.
    auth: { mode: 'optional', secret: SECRET },
    budgets: { anonTurnsPerHour: 10 },
    budgetStore: new RedisBudgetStore(connections.command, 'aalis:budget:'),
    handoff: {},
  });
  servers.push(server);
  return server;
}

const slowly = (words: number): Reply => ({
  body: sse([
    completionChunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: words }, (_, i) => completionChunk({ content: `w${i} ` })),
    completionChunk({}, 'stop'),
    usageChunk(1, words),
  ]),
  byEvent: true,
  delayMs: 40,
});

test('erased on one instance while its turn runs on the other: stopped, its tabs leave, nothing of it left in Redis', async () => {
  const store = new MemoryHistoryStore();
  const one = await instance(store, [
    { body: textAnswer('First answer.') },
    slowly(200),
    { body: textAnswer('Kept.') },
  ]);
  const two = await instance(store, []);
  // The visitor: a tab on each instance, one conversation answered, a second one answering.
  const tab = await one.connect();
  const ready = await tab.hello();
  tab.send({ type: 'send', text: 'hello' });
  await tab.turnEnd();
  const other = await two.connect();
  await other.hello(ready.sessionId, undefined, ready.anonymousKey);
  const second = await one.connect();
  const secondReady = await second.hello(undefined, undefined, ready.anonymousKey);
  second.send({ type: 'send', text: 'talk for long' });
  await second.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
  // Someone else, whose keys must stay.
  const stranger = await one.connect();
  const strangerReady = await stranger.hello();
  stranger.send({ type: 'send', text: 'mine' });
  await stranger.turnEnd();

  const http = two.url.replace(/^ws/, 'http').replace(/\/ws$/, '');
  const list = (await (
    await fetch(`${http}/admin/api/conversations`, { headers: { authorization: `Bearer ${ADMIN}` } })
  ).json()) as { conversations: Array<{ sessionId: string; visitorId: string }> };
  const visitorId = list.conversations.find((c) => c.sessionId === ready.sessionId)!.visitorId;
  const erased = await fetch(`${http}/admin/api/visitors/${encodeURIComponent(visitorId)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  expect(erased.status).toBe(204);

  // Every tab of the visitor, on both instances, leaves; the running turn is stopped there.
  await tab.next((f) => f.type === 'session_deleted' && f.sessionId === ready.sessionId);
  await other.next((f) => f.type === 'session_deleted' && f.sessionId === ready.sessionId);
  await second.next((f) => f.type === 'session_deleted' && f.sessionId === secondReady.sessionId);
  // Its answer would take 8 s more: it ends at once, with nowhere to be stored.
  await expect.poll(() => one.app.aalis.hub.runningTurns, { timeout: 4_000 }).toBe(0);
  expect(await store.hasSession(ready.sessionId)).toBe(false);
  expect(await store.hasSession(secondReady.sessionId)).toBe(false);

  // Nothing in Redis names the visitor or its sessions; the stranger's keys are there.
  const keys = await probe.command.keys('*');
  const visitorKey = visitorId.slice('anon:'.length);
  expect(keys.filter((key) => key.includes(visitorKey))).toEqual([]);
  expect(keys.filter((key) => key.includes(ready.sessionId) || key.includes(secondReady.sessionId))).toEqual(
    [],
  );
  expect(keys.some((key) => key.includes(strangerReady.sessionId))).toBe(true);
  expect(keys.some((key) => /^aalis:budget:\d+:visitor_turns:anonymous:anon:/.test(key))).toBe(true);
}, 30_000);

test('handoff across instances: asked on one, answered and released from the other, the model silent meanwhile', async () => {
  const store = new MemoryHistoryStore();
  const one = await instance(store, [
    { body: textAnswer('Model here.') },
    { body: textAnswer('Model back.') },
  ]);
  const two = await instance(store, []);
  const tab = await one.connect();
  const ready = await tab.hello(undefined, undefined, undefined, ['operator']);
  const { sessionId, anonymousKey } = ready;
  tab.send({ type: 'send', text: 'hello' });
  await tab.turnEnd();
  const elsewhere = await two.connect();
  await elsewhere.hello(sessionId, undefined, anonymousKey, ['operator']);
  tab.send({ type: 'handoff', reason: 'a person please' });
  for (const client of [tab, elsewhere])
    await client.next((f) => f.type === 'handoff' && f.state === 'waiting');

  const http = two.url.replace(/^ws/, 'http').replace(/\/ws$/, '');
  const post = (path: string, body: object) =>
    fetch(`${http}/admin/api/conversations/${sessionId}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('messages', { text: 'Grace here.', operator: 'Grace' })).status).toBe(200);
  for (const client of [tab, elsewhere]) {
    await client.next((f) => f.type === 'handoff' && f.state === 'active' && f.operator === 'Grace');
    await client.next(
      (f) => f.type === 'message' && f.message.role === 'operator' && f.message.author === 'Grace',
    );
  }
  // The visitor writes on one: shown on two, no turn anywhere.
  const asked = one.upstream!.requests.length;
  tab.send({ type: 'send', text: 'thank you Grace' });
  await elsewhere.next((f) => f.type === 'user_message' && f.message.toOperator === true);
  expect(one.upstream!.requests.length).toBe(asked);
  expect(await store.handoff(sessionId)).toMatchObject({ state: 'active', operator: 'Grace' });

  expect((await post('release', {})).status).toBe(204);
  await tab.next((f) => f.type === 'handoff' && f.state === 'off');
  const from = tab.frames.length;
  tab.send({ type: 'send', text: 'and now?' });
  expect(
    await tab.next((f) => f.type === 'message' && f.message.role === 'assistant', { from }),
  ).toMatchObject({
    message: { parts: [{ type: 'text', text: 'Model back.' }] },
  });
}, 30_000);
