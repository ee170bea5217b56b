/**
 * What an attacker's probe found, replayed on real sockets: one address churning fresh
 * anonymous identities stops at the address's budget (`address_turns`), a /64 is one
 * address however it is spelled, a client that is not a trusted proxy cannot choose its
 * address, and the count survives a restart (the data folder). Another address is
 * unaffected throughout.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import { textAnswer, type Reply } from './fake-upstream.js';
import { sample } from './metrics-sample.js';
import { startServer, TestClient, type Harness } from './ws-harness.js';

const SECRET = 'a-secret-of-at-least-32-bytes-for-tests!';
const answers = (count: number): Reply[] =>
  Array.from({ length: count }, (_, i) => ({ body: textAnswer(`Answer ${i}.`) }));

/** Every per-address limit but the turns per hour off, so that only the budget is measured. */
const onlyTurnBudget = (turns: number, trustProxy: string[] = ['loopback']) => ({
  auth: { mode: 'optional' as const, secret: SECRET },
  budgets: { ipTurnsPerHour: turns, anonTurnsPerHour: 100 },
  ipLimits: { maxConnections: 0, connectionsPerMinute: 0, sendsPerMinute: 0, trustProxy },
});

let harness: Harness | undefined;
const sockets: WebSocket[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await harness?.close();
  harness = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A fresh visitor (no anonymous key: a new identity) from `forwardedFor`, or from `localAddress`. */
async function freshVisitor(url: string, from: { forwardedFor?: string; localAddress?: string }) {
  const socket = new WebSocket(url, {
    ...(from.forwardedFor ? { headers: { 'x-forwarded-for': from.forwardedFor } } : {}),
    ...(from.localAddress ? { localAddress: from.localAddress } : {}),
  });
  sockets.push(socket);
  const client = TestClient.wrap(socket);
  await once(socket, 'open');
  const ready = await client.hello();
  expect(ready.anonymousKey).toBeTruthy();
  return client;
}

/** One turn from a fresh identity: its answer, or the error that refused it. */
async function turnFrom(url: string, from: { forwardedFor?: string; localAddress?: string }) {
  const client = await freshVisitor(url, from);
  client.send({ type: 'send', text: 'hello', clientMessageId: 'm' });
  return client.next((f) => f.type === 'message' || (f.type === 'error' && f.clientMessageId === 'm'));
}

describe('per-address turn budget', () => {
  test('fresh identities from one /64 stop at the budget, whatever the spelling; other addresses go on', async () => {
    harness = await startServer({ replies: answers(8), ...onlyTurnBudget(3) });
    for (const address of ['2001:db8::1', '2001:db8::2', '2001:DB8:0:0:0:0:0:3']) {
      expect(await turnFrom(harness.url, { forwardedFor: address })).toMatchObject({
        type: 'message',
        message: { status: 'complete' },
      });
    }
    // A fourth identity on the same /64, in each spelling, is refused by the address's budget.
    for (const address of ['2001:db8::5', '2001:db8:0:0:ffff::9', '2001:0db8:0000:0000::1']) {
      const refused = await turnFrom(harness.url, { forwardedFor: address });
      expect(refused).toMatchObject({ type: 'error', code: 'quota_exceeded', limit: 'address_turns' });
      expect((refused as { retryInMs: number }).retryInMs).toBeGreaterThan(0);
      expect((refused as { retryInMs: number }).retryInMs).toBeLessThanOrEqual(3_600_000);
    }
    // The next /64, and an IPv4 address, have budgets of their own.
    expect(await turnFrom(harness.url, { forwardedFor: '2001:db8:0:1::1' })).toMatchObject({
      type: 'message',
    });
    expect(await turnFrom(harness.url, { forwardedFor: '198.51.100.7' })).toMatchObject({ type: 'message' });
  });

  test('an IPv4-mapped IPv6 address is the IPv4 address', async () => {
    harness = await startServer({ replies: answers(4), ...onlyTurnBudget(1) });
    expect(await turnFrom(harness.url, { forwardedFor: '192.0.2.77' })).toMatchObject({ type: 'message' });
    for (const spelling of ['::ffff:c000:24d', '::ffff:192.0.2.77'])
      expect(await turnFrom(harness.url, { forwardedFor: spelling })).toMatchObject({
        code: 'quota_exceeded',
        limit: 'address_turns',
      });
  });

  test('X-Forwarded-For from a client that is not a trusted proxy changes nothing', async () => {
    harness = await startServer({ replies: answers(4), ...onlyTurnBudget(2, ['127.0.0.1']) });
    // 127.0.0.2 is not the trusted proxy: each "forwarded" address is really 127.0.0.2.
    const from = (forwardedFor: string) => ({ forwardedFor, localAddress: '127.0.0.2' });
    expect(await turnFrom(harness.url, from('203.0.113.1'))).toMatchObject({ type: 'message' });
    expect(await turnFrom(harness.url, from('203.0.113.2'))).toMatchObject({ type: 'message' });
    expect(await turnFrom(harness.url, from('203.0.113.3'))).toMatchObject({ limit: 'address_turns' });
    // The trusted proxy's forwarded client is another address.
    expect(await turnFrom(harness.url, { forwardedFor: '203.0.113.3' })).toMatchObject({ type: 'message' });
  });

  test('the count survives a restart on the same data folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'aalis-address-'));
    folders.push(folder);
    const start = async () =>
      startServer({ replies: answers(2), store: new SqliteHistoryStore(folder), ...onlyTurnBudget(2) });
    harness = await start();
    expect(await turnFrom(harness.url, { forwardedFor: '203.0.113.9' })).toMatchObject({ type: 'message' });
    await harness.close();
    harness = await start();
    expect(await turnFrom(harness.url, { forwardedFor: '203.0.113.9' })).toMatchObject({ type: 'message' });
    expect(await turnFrom(harness.url, { forwardedFor: '203.0.113.9' })).toMatchObject({
      code: 'quota_exceeded',
      limit: 'address_turns',
    });
  });

  test("an address's model tokens per day: the turn that passes it finishes, the next is refused", async () => {
    harness = await startServer({
      replies: [{ body: textAnswer('Long.', 300, 500) }, { body: textAnswer('Never.') }],
      auth: { mode: 'optional', secret: SECRET },
      budgets: { ipTokensPerDay: 500 },
      ipLimits: { maxConnections: 0, connectionsPerMinute: 0, sendsPerMinute: 0 },
    });
    expect(await turnFrom(harness.url, {})).toMatchObject({
      type: 'message',
      message: { status: 'complete' },
    });
    expect(await turnFrom(harness.url, {})).toMatchObject({
      code: 'quota_exceeded',
      limit: 'address_tokens',
    });
  });

  test("/metrics counts refusals by budget and shows the day's spend against the server budget", async () => {
    harness = await startServer({
      replies: [{ body: textAnswer('Counted.', 40, 60) }],
      auth: { mode: 'optional', secret: SECRET },
      budgets: { ipTurnsPerHour: 1, serverTokensPerDay: 10_000 },
      ipLimits: { maxConnections: 0, connectionsPerMinute: 0, sendsPerMinute: 0 },
    });
    expect(await turnFrom(harness.url, {})).toMatchObject({ type: 'message' });
    expect(await turnFrom(harness.url, {})).toMatchObject({ limit: 'address_turns' });
    const text = (await harness.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(text, 'aalis_budget_refusals_total', { limit: 'address_turns' })).toBe(1);
    expect(sample(text, 'aalis_refusals_total', { code: 'quota_exceeded' })).toBe(1);
    expect(sample(text, 'aalis_server_tokens_today')).toBe(100);
    expect(sample(text, 'aalis_server_tokens_per_day_limit')).toBe(10_000);
  });
});
