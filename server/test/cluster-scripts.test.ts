/**
 * The Lua scripts' fencing on a real Redis (cluster/scripts.ts): one owner per turn,
 * whatever Redis forgets. After a restart without persistence the owner that was not
 * replaced puts its turn back and goes on; one that was replaced meanwhile is refused,
 * for renewals and for writes alike.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sessionKeys } from '../src/cluster/keys.js';
import { KEEP_MS, withScripts, type ScriptedRedis } from '../src/cluster/scripts.js';
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
const claim = (instance: string, token: string) =>
  client.aalisClaim(
    keys.lease,
    keys.generation,
    keys.frames,
    keys.abort,
    keys.decisions,
    instance,
    5_000,
    KEEP_MS,
    token,
  );
const renew = (instance: string, token: string) =>
  client.aalisRenew(keys.lease, keys.generation, keys.abort, keys.decisions, token, instance, 5_000, 'turn');
const append = (instance: string, token: string, frame: string) =>
  client.aalisAppend(
    keys.frames,
    keys.snapshot,
    keys.generation,
    keys.lease,
    keys.abort,
    keys.decisions,
    token,
    1_000,
    '',
    60_000,
    instance,
    '0',
    'turn',
    60_000,
    frame,
  );

test('one claim at a time; Redis forgetting everything does not give a turn two owners', async () => {
  expect((await claim('A', 'A:t1'))[0]).toBe(1);
  expect(await claim('B', 'B:t2')).toEqual([0]);
  expect((await renew('A', 'A:t1'))[0]).toBe(1);

  // Redis restarts empty, and B claims before A renews: A is replaced.
  await client.flushall();
  expect((await claim('B', 'B:t2'))[0]).toBe(1);
  expect(await renew('A', 'A:t1')).toEqual([0]);
  expect(await append('A', 'A:t1', '{"stale":true}')).toEqual([0]);
  expect((await append('B', 'B:t2', '{"fresh":true}'))[0]).toBe(1);
  const entries = await client.xrange(keys.frames, '-', '+');
  expect(entries.map(([, fields]) => fields[3])).toEqual(['{"fresh":true}']);

  // Redis restarts empty again, and the owner renews first: it goes on, and a claim is busy.
  await client.flushall();
  expect((await renew('B', 'B:t2'))[0]).toBe(1);
  expect(await claim('A', 'A:t3')).toEqual([0]);
  expect((await append('B', 'B:t2', '{"again":true}'))[0]).toBe(1);
});
