/**
 * Limits hold for the whole site when instances share Redis: a turn running on one
 * instance counts on every other against the concurrent-turns budget, an address's sends
 * per minute and turns per hour are counted once over all instances, and the owner's
 * pause on one instance holds on every other. Two servers in one process on a
 * real Redis, each on its own fake upstream.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisSessionCluster } from '../src/cluster/redis-cluster.js';
import { connectRedis } from '../src/cluster/redis-connections.js';
import { SharedIpRates } from '../src/cluster/shared-ip-rates.js';
import { RedisBudgetStore } from '../src/budgets/redis-budget-store.js';
import { RedisPauseSwitch } from '../src/budgets/pause-switch.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { completionChunk, sse, textAnswer, usageChunk, type Reply } from './fake-upstream.js';
import { startRedis, type RedisService } from './services/redis.js';
import { startServer, type Harness } from './ws-harness.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} } as never;
let redis: RedisService;
const servers: Harness[] = [];
const clusters: RedisSessionCluster[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const cluster of clusters) await cluster.close();
  await redis.stop();
});

async function serverOn(store: MemoryHistoryStore, replies: Reply[]) {
  const cluster = new RedisSessionCluster(await connectRedis(redis.url, silent), silent, { leaseMs: 1_000 });
  clusters.push(cluster);
  const server = await startServer({ replies, cluster, store, budgets: { maxConcurrentTurns: 1 } });
  servers.push(server);
  return server;
}

test('maxConcurrentTurns counts the turns of every instance', async () => {
  const store = new MemoryHistoryStore();
  const words = Array.from({ length: 30 }, (_, i) => completionChunk({ content: `w${i} ` }));
  const slow = sse([
    completionChunk({ role: 'assistant', content: '' }),
    ...words,
    completionChunk({}, 'stop'),
    usageChunk(1, 30),
  ]);
  const first = await serverOn(store, [{ body: slow, byEvent: true, delayMs: 40 }]);
  const second = await serverOn(store, [{ body: textAnswer('Now there is room.') }]);
  const a = await first.connect();
  await a.hello();
  const b = await second.connect();
  await b.hello();
  a.send({ type: 'send', text: 'talk slowly' });
  await a.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
  b.send({ type: 'send', text: 'me too', clientMessageId: 'b1' });
  const refused = await b.next((f) => f.type === 'error' && f.clientMessageId === 'b1');
  expect(refused).toMatchObject({ code: 'overloaded', limit: 'concurrent_turns' });
  await a.turnEnd();
  // The turn counts until its instance has given its lease up, a moment after its answer.
  await expect.poll(() => clusters[0]!.runningTurns(), { timeout: 2_000, interval: 20 }).toBe(0);
  const from = b.frames.length;
  b.send({ type: 'send', text: 'and now?', clientMessageId: 'b2' });
  const next = await b.next(
    (f) => f.type === 'message' || (f.type === 'error' && f.clientMessageId !== undefined),
    { from },
  );
  expect(next).toMatchObject({ type: 'message', message: { status: 'complete' } });
}, 30_000);

test("an address's sends per minute and turns per hour are counted once for every instance", async () => {
  const connections = await connectRedis(redis.url, silent);
  const cluster = new RedisSessionCluster(connections, silent, { leaseMs: 1_000 });
  clusters.push(cluster);
  // Every instance counts in the same Redis, as app.ts sets them up.
  const shared = () => ({
    ipLimits: { sendsPerMinute: 3 },
    budgets: { ipTurnsPerHour: 2 },
    budgetStore: new RedisBudgetStore(connections.command, 'test:counts:'),
    sharedIpRates: new SharedIpRates(connections.command, 'test:ip:'),
  });
  const replies = () => [{ body: textAnswer('One.') }, { body: textAnswer('Two.') }];
  const one = await startServer({
    replies: replies(),
    cluster,
    store: new MemoryHistoryStore(),
    ...shared(),
  });
  const two = await startServer({
    replies: replies(),
    cluster,
    store: new MemoryHistoryStore(),
    ...shared(),
  });
  servers.push(one, two);
  const tabs = [await one.connect(), await two.connect()];
  for (const tab of tabs) await tab.hello();
  tabs[0]!.send({ type: 'send', text: 'first' });
  await tabs[0]!.turnEnd();
  tabs[1]!.send({ type: 'send', text: 'second' });
  await tabs[1]!.turnEnd();
  // Each instance alone has seen one turn; together, the address used its two.
  tabs[0]!.send({ type: 'send', text: 'third', clientMessageId: 't3' });
  const overTurns = await tabs[0]!.next((f) => f.type === 'error' && f.clientMessageId === 't3');
  expect(overTurns).toMatchObject({ code: 'quota_exceeded', limit: 'address_turns' });
  // And its three sends of the minute are spent (the refused one counted too).
  tabs[1]!.send({ type: 'send', text: 'fourth', clientMessageId: 't4' });
  const overSends = await tabs[1]!.next((f) => f.type === 'error' && f.clientMessageId === 't4');
  expect(overSends).toMatchObject({ code: 'rate_limited' });
}, 30_000);

test('pausing one instance pauses every instance on the same Redis', async () => {
  const connections = await connectRedis(redis.url, silent);
  const cluster = new RedisSessionCluster(connections, silent, { leaseMs: 1_000 });
  clusters.push(cluster);
  const adminToken = 'owner-token-0123456789';
  const on = () => ({
    cluster,
    store: new MemoryHistoryStore(),
    adminToken,
    pauseSwitch: new RedisPauseSwitch(connections.command, 'test:paused'),
  });
  const one = await startServer({ ...on() });
  const two = await startServer({ ...on(), replies: [{ body: textAnswer('Resumed.') }] });
  servers.push(one, two);
  const admin = (server: Harness, path: string) =>
    fetch(`${server.url.replace(/^ws/, 'http').replace(/\/ws$/, '')}/admin/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
    });
  expect((await admin(one, 'pause')).status).toBe(200);
  const tab = await two.connect();
  await tab.hello();
  tab.send({ type: 'send', text: 'hi', clientMessageId: 'p' });
  expect(await tab.next((f) => f.type === 'error' && f.clientMessageId === 'p')).toMatchObject({
    code: 'paused',
  });
  expect((await admin(two, 'resume')).status).toBe(200);
  const from = tab.frames.length;
  tab.send({ type: 'send', text: 'now?', clientMessageId: 'q' });
  expect(await tab.turnEnd(from)).toMatchObject({ message: { status: 'complete' } });
}, 30_000);
