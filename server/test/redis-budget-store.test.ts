/**
 * Budgets counted in a real Redis (services/redis.ts): two Budgets on two connections
 * stand for two instances of the server behind a balancer, and must hold one limit
 * between them. Counts are atomic, keys expire when their window ends, and a count lives
 * in Redis, not in the connection that made it.
 */
import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import { ErrorCode } from '@aalis/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { NO_BUDGETS, type BudgetLimits } from '../src/budgets/budget-config.js';
import { Budgets } from '../src/budgets/budgets.js';
import { RedisBudgetStore } from '../src/budgets/redis-budget-store.js';
import { startRedis, type RedisService } from './services/redis.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const alice = { id: 'user:alice', kind: 'signed' as const };

/**
 * Ten minutes into the next clock hour: windows that end in the future of Redis's own
 * clock (a key whose PEXPIREAT is past is deleted at once), and a retry time that does
 * not depend on when the test runs.
 */
const nextHour = Date.now() - (Date.now() % HOUR) + HOUR;
const NOW = nextHour + 10 * 60_000;

let redis: RedisService;
const clients: Redis[] = [];
let testNumber = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});
afterAll(() => redis?.stop());

function connect(options: RedisOptions = {}, to: RedisService = redis): Redis {
  const client = new Redis(to.url, { maxRetriesPerRequest: 3, ...options });
  // Some tests stop Redis on purpose: the refused reconnects are expected, not news.
  client.on('error', () => {});
  clients.push(client);
  return client;
}

/** Two instances' budgets, each on its own connection, counting under one prefix of their own. */
function twoInstances(limits: Partial<BudgetLimits>, to: RedisService = redis, options: RedisOptions = {}) {
  const prefix = `test:${++testNumber}:`;
  const clock = { now: NOW };
  const instance = () => {
    const client = connect(options, to);
    const store = new RedisBudgetStore(client, prefix);
    return {
      client,
      store,
      budgets: new Budgets({ limits: { ...NO_BUDGETS, ...limits }, store, now: () => clock.now }),
    };
  };
  return { a: instance(), b: instance(), prefix };
}

describe('Budgets on Redis, shared by two instances', () => {
  test("a visitor's hourly turns are one limit, whichever instance their sends reach", async () => {
    const { a, b } = twoInstances({ visitorTurnsPerHour: 3 });
    await a.budgets.turnAccepted(alice);
    await b.budgets.turnAccepted(alice);
    expect(await a.budgets.refusal(alice, undefined, () => 0)).toBeUndefined();
    await a.budgets.turnAccepted(alice);

    for (const instance of [a, b]) {
      const refused = await instance.budgets.refusal(alice, undefined, () => 0);
      expect(refused).toMatchObject({
        code: ErrorCode.QuotaExceeded,
        limit: 'visitor_turns',
        retryInMs: 50 * 60_000,
      });
      expect(refused!.message).toMatch(/3 messages per hour: try again in 50 min/);
    }
    // Another visitor has their own count, on either instance.
    expect(await b.budgets.refusal({ id: 'user:bob', kind: 'signed' }, undefined, () => 0)).toBeUndefined();
  });

  test('counts from both instances at once are all kept (INCRBY is atomic)', async () => {
    const { a, b } = twoInstances({ visitorTokensPerDay: 1_000_000, serverTokensPerDay: 1_000_000 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).budgets.turnEnded(alice, 7)));
    const dayStart = NOW - (NOW % DAY);
    expect(await a.store.count('visitor_tokens:signed:user:alice', dayStart)).toBe(140);
    expect(await b.store.count('server_tokens:server', dayStart)).toBe(140);
    expect(await a.store.add('server_tokens:server', dayStart, 10, dayStart + DAY)).toBe(150);
  });

  test('the server-wide daily tokens run out for every instance', async () => {
    const { a, b } = twoInstances({ serverTokensPerDay: 100 });
    await a.budgets.turnEnded(undefined, 60);
    expect(await b.budgets.refusal(undefined, undefined, () => 0)).toBeUndefined();
    await b.budgets.turnEnded(alice, 40);
    expect(await a.budgets.refusal(alice, undefined, () => 0)).toMatchObject({
      code: ErrorCode.Overloaded,
      limit: 'server_tokens',
    });
  });
});

describe('RedisBudgetStore keys', () => {
  test('expire when their window ends (PEXPIREAT), so prune has nothing to do', async () => {
    const { a, prefix } = twoInstances({ visitorTurnsPerHour: 5 });
    await a.budgets.turnAccepted(alice);
    const [key, ...others] = await a.client.keys(`${prefix}*`);
    expect(others).toEqual([]);
    const windowEnd = nextHour + HOUR;
    const ttl = await a.client.pttl(key!);
    // PTTL counts from Redis's clock, which is the real one: the window ends that far ahead.
    expect(ttl).toBeGreaterThan(windowEnd - Date.now() - 5_000);
    expect(ttl).toBeLessThanOrEqual(windowEnd - Date.now() + 1_000);

    // A window that is over a moment from now is gone by itself.
    const soon = Date.now() + 150;
    expect(await a.store.add('k', 0, 4, soon)).toBe(4);
    expect(await a.store.count('k', 0)).toBe(4);
    // Redis's clock has to pass the window's end: waited for, up to a second past it.
    await expect
      .poll(() => a.store.count('k', 0), { timeout: soon + 1_000 - Date.now(), interval: 20 })
      .toBe(0);
    expect(Date.now()).toBeGreaterThanOrEqual(soon);
    expect(await a.client.keys(`${prefix}*`)).toEqual([key]);

    await a.store.prune(Number.MAX_SAFE_INTEGER);
    expect(await a.store.count('visitor_turns:signed:user:alice', nextHour)).toBe(1);
  });

  test('a count survives one client reconnecting', async () => {
    const { a, b } = twoInstances({ visitorTurnsPerHour: 2 });
    await a.budgets.turnAccepted(alice);
    await b.budgets.turnAccepted(alice);

    const closed = once(a.client, 'end');
    a.client.disconnect();
    await closed;
    await a.client.connect();
    expect(await a.budgets.refusal(alice, undefined, () => 0)).toMatchObject({ limit: 'visitor_turns' });
    expect(await b.budgets.refusal(alice, undefined, () => 0)).toMatchObject({ limit: 'visitor_turns' });
  });
});

describe('when Redis goes away', () => {
  let own: RedisService;
  beforeAll(async () => {
    own = await startRedis();
  });
  afterAll(() => own?.stop());

  test('reading and counting reject at once, rather than hold a send (the hub lets it through)', async () => {
    // No offline queue: a command while disconnected fails instead of waiting for Redis.
    const { a } = twoInstances({ visitorTurnsPerHour: 1 }, own, { enableOfflineQueue: false });
    if (a.client.status !== 'ready') await once(a.client, 'ready');
    await a.budgets.turnAccepted(alice);
    await own.kill();
    await expect(a.budgets.refusal(alice, undefined, () => 0)).rejects.toThrow();
    await expect(a.budgets.turnAccepted(alice)).rejects.toThrow();
  });

  test('after a restart the same connections count again', async () => {
    await own.restart(); // up again, whatever the test before did to it
    const { a, b } = twoInstances({ visitorTurnsPerHour: 1 }, own);
    await a.budgets.turnAccepted(alice);
    expect(await b.budgets.refusal(alice, undefined, () => 0)).toMatchObject({ limit: 'visitor_turns' });

    await own.restart();
    // The launcher runs Redis without persistence: the restart forgot the count. The
    // commands wait in the clients' offline queues until they are connected again.
    expect(await b.budgets.refusal(alice, undefined, () => 0)).toBeUndefined();
    await a.budgets.turnAccepted(alice);
    expect(await b.budgets.refusal(alice, undefined, () => 0)).toMatchObject({ limit: 'visitor_turns' });
  });
});
