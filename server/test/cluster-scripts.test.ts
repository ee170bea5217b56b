/**
 * The Lua scripts' fencing on a real Redis (cluster/scripts.ts): one owner per turn,
 * whatever Redis forgets. After a restart without persistence the owner that was not
 * replaced puts its turn back and goes on; one that was replaced meanwhile is refused,
 * for renewals and for writes alike.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sessionKeys } from '../src/cluster/keys.js';
import {
  appendFrames,
  claimTurn,
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
const claim = async (instance: string, token: string) =>
  !(await claimTurn(client, keys, writer(instance, token), 5_000)).busy;
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
  expect(await claim('A', 'A:t1')).toBe(true);
  expect(await claim('B', 'B:t2')).toBe(false);
  expect(await renew('A', 'A:t1')).toBe(true);

  // Redis restarts empty, and B claims before A renews: A is replaced.
  await client.flushall();
  expect(await claim('B', 'B:t2')).toBe(true);
  expect(await renew('A', 'A:t1')).toBe(false);
  expect(await append('A', 'A:t1', '{"stale":true}')).toBe(false);
  expect(await append('B', 'B:t2', '{"fresh":true}')).toBe(true);
  const entries = await client.xrange(keys.frames, '-', '+');
  expect(entries.map(([, fields]) => fields[3])).toEqual(['{"fresh":true}']);

  // Redis restarts empty again, and the owner renews first: it goes on, and a claim is busy.
  await client.flushall();
  expect(await renew('B', 'B:t2')).toBe(true);
  expect(await claim('A', 'A:t3')).toBe(false);
  expect(await append('B', 'B:t2', '{"again":true}')).toBe(true);
});
