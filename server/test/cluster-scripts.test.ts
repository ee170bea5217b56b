/**
 * The Lua scripts' fencing on a real Redis (cluster/scripts.ts): one owner per turn,
 * whatever Redis forgets. After a restart without persistence nobody takes a session
 * before its owner has had a lease's time to put its turn back (unless the history says
 * no turn runs there); the owner that was not replaced goes on; one that was replaced is
 * refused, for renewals and for writes alike.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sessionKeys } from '../src/cluster/keys.js';
import {
  appendFrames,
  claimTurn,
  ownerState,
  renewTurn,
  withScripts,
  type ScriptedRedis,
} from '../src/cluster/scripts.js';
import { startRedis, type RedisService } from './services/redis.js';

let redis: RedisService;
let client: ScriptedRedis;
beforeAll(async () => {
  redis = await startRedis();
  client = withScripts(new Redis(redis.url));
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

const keys = sessionKeys('aalis:', 'session-1');
const writer = (instanceId: string, generation: string) => ({ instanceId, generation, turnId: 'turn' });
const GRACE_MS = 400;
const claimed = (instance: string, token: string, force = false) =>
  claimTurn(client, keys, writer(instance, token), { leaseMs: 5_000, graceMs: GRACE_MS, force });
const claim = async (instance: string, token: string, force = false) => {
  const result = await claimed(instance, token, force);
  return 'uncertain' in result ? 'uncertain' : !result.busy;
};
const renew = async (instance: string, token: string) =>
  !(await renewTurn(client, keys, writer(instance, token), 5_000)).fenced;
const append = async (instance: string, token: string, frame: string) =>
  !(
    await appendFrames(client, keys, writer(instance, token), [frame], {
      maxFrames: 1_000,
      snapshotTtlMs: 60_000,
      end: false,
      framesTtlMs: 60_000,
    })
  ).fenced;

test('one claim at a time; Redis forgetting everything does not give a turn two owners', async () => {
  expect(await claim('A', 'A:t1', true)).toBe(true);
  expect(await claim('B', 'B:t2')).toBe(false);
  expect(await renew('A', 'A:t1')).toBe(true);

  // Redis restarts empty: B's claim before A renews is not a takeover (no evidence A is
  // gone), and A, renewing within the grace, goes on; B is busy.
  await client.flushall();
  expect(await claim('B', 'B:t2')).toBe('uncertain');
  expect(await renew('A', 'A:t1')).toBe(true);
  expect(await claim('B', 'B:t2')).toBe(false);
  expect(await claim('B', 'B:t2', true)).toBe(false);
  expect(await append('A', 'A:t1', '{"owner":true}')).toBe(true);

  // Redis restarts empty again and A never comes back: once a lease has passed since
  // Redis first saw the session so, B may claim, and A is refused from then on.
  await client.flushall();
  const since = Date.now();
  expect(await claim('B', 'B:t2')).toBe('uncertain');
  await expect.poll(() => claim('B', 'B:t2'), { interval: 20 }).toBe(true);
  expect(Date.now() - since).toBeGreaterThanOrEqual(GRACE_MS - 20);
  expect(await renew('A', 'A:t1')).toBe(false);
  expect(await append('A', 'A:t1', '{"stale":true}')).toBe(false);
  expect(await append('B', 'B:t2', '{"fresh":true}')).toBe(true);
  const entries = await client.xrange(keys.frames, '-', '+');
  expect(entries.map(([, fields]) => fields[3])).toEqual(['{"fresh":true}']);
});

test('the history saying no turn runs lets a claim through at once after Redis lost its data', async () => {
  await client.flushall();
  expect(await claim('C', 'C:t1')).toBe('uncertain');
  expect(await claim('C', 'C:t1', true)).toBe(true);
  // Forcing never takes a lease that is held.
  expect(await claim('D', 'D:t1', true)).toBe(false);
});

test("a Stop recorded for a turn reaches the claim that ends it; the owner's state as others see it", async () => {
  await client.flushall();
  expect(await claim('A', 'A:t9', true)).toBe(true);
  expect(await ownerState(client, keys, GRACE_MS)).toMatchObject({ state: 'held' });
  await client.set(keys.abort, 'turn-9');
  // The lease runs out (the owner died): positive evidence, the generation is there.
  await client.del(keys.lease);
  expect(await ownerState(client, keys, GRACE_MS)).toEqual({ state: 'gone' });
  expect(await claimed('B', 'B:orphan')).toMatchObject({ busy: false, stopped: 'turn-9' });
  expect(await client.exists(keys.abort)).toBe(0);
  // Redis lost everything: nobody is gone until the grace has passed.
  await client.flushall();
  expect(await ownerState(client, keys, GRACE_MS)).toEqual({ state: 'uncertain' });
  await expect.poll(() => ownerState(client, keys, GRACE_MS), { interval: 20 }).toEqual({ state: 'gone' });
});

test('a claim names the turn before when it never ended; an ended one, or a dead owner ended by another, is not named', async () => {
  await client.flushall();
  const take = (instance: string, token: string) =>
    claimTurn(
      client,
      keys,
      { instanceId: instance, generation: token, turnId: token.split(':')[1]! },
      {
        leaseMs: 5_000,
        graceMs: GRACE_MS,
        force: true,
      },
    );
  expect(await take('A', 'A:turn-1')).toMatchObject({ busy: false, unended: undefined });
  // A dies mid-turn: its lease runs out, and a new turn is claimed before anyone ended it.
  await client.del(keys.lease);
  expect(await take('B', 'B:turn-2')).toMatchObject({ busy: false, unended: 'turn-1' });
  // B's turn ends as turns do (the last append): the next claim has nothing to end.
  await appendFrames(client, keys, { instanceId: 'B', generation: 'B:turn-2', turnId: 'turn-2' }, [], {
    maxFrames: 1_000,
    snapshotTtlMs: 60_000,
    end: true,
    framesTtlMs: 60_000,
  });
  expect(await take('C', 'C:turn-3')).toMatchObject({ busy: false, unended: undefined });
  // C dies; D's claim to end C's turn names it, and so would a new turn's if D died too.
  await client.del(keys.lease);
  expect(await take('D', 'D:orphan:turn-3')).toMatchObject({ unended: 'turn-3' });
  await client.del(keys.lease);
  expect(await take('E', 'E:turn-4')).toMatchObject({ unended: 'turn-3' });
});
