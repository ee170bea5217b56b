/**
 * Per-IP limits on real sockets: open sockets and new sockets per minute refused with
 * HTTP 429 before the upgrade (a second loopback address unaffected), X-Forwarded-For
 * from a trusted proxy only, and sends per IP across connections. Admission is the one
 * transport core's: adapters-shared.test.ts runs its cases through both adapters.
 */
import { ErrorCode } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { IpLimits } from '../src/transport/ip-limits.js';
import { fixture } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

const answer = fixture('openai-text-answer.sse');

type Opened = { ok: true; socket: WebSocket } | { ok: false; status: number; retryAfter?: string };

const sockets: WebSocket[] = [];

/** A socket from `localAddress`, with extra headers; resolves with the refusal's status. */
function open(url: string, options: { localAddress?: string; headers?: Record<string, string> } = {}) {
  return new Promise<Opened>((resolve, reject) => {
    const socket = new WebSocket(url, options);
    socket.once('open', () => {
      sockets.push(socket);
      resolve({ ok: true, socket });
    });
    socket.once('unexpected-response', (_request, response) => {
      const retryAfter = response.headers['retry-after'];
      resolve({ ok: false, status: response.statusCode ?? 0, ...(retryAfter ? { retryAfter } : {}) });
      response.resume();
    });
    socket.once('error', reject);
  });
}

async function closeAndWait(socket: WebSocket) {
  await new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.close();
  });
}

/** Opens until it is let in: a closed socket is uncounted when the server sees its TCP close. */
async function eventuallyOpen(url: string): Promise<Opened> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const opened = await open(url);
    if (opened.ok) return opened;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return open(url);
}

let harness: Harness | undefined;
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await harness?.close();
  harness = undefined;
});

describe('per-IP limits, Fastify plugin', () => {
  test('open sockets: the third from 127.0.0.1 gets 429, 127.0.0.2 is unaffected, a close frees a slot', async () => {
    harness = await startServer({ ipLimits: { maxConnections: 2, connectionsPerMinute: 0 } });
    const first = await open(harness.url);
    const second = await open(harness.url);
    expect(first.ok && second.ok).toBe(true);
    const third = await open(harness.url);
    expect(third).toEqual({ ok: false, status: 429, retryAfter: '60' });
    const other = await open(harness.url, { localAddress: '127.0.0.2' });
    expect(other.ok).toBe(true);
    await closeAndWait((first as { socket: WebSocket }).socket);
    expect((await eventuallyOpen(harness.url)).ok).toBe(true);
  });

  test('new sockets per minute, with Retry-After until the window ends', async () => {
    let now = 1_000_000;
    harness = await startServer({
      ipLimits: { maxConnections: 0, connectionsPerMinute: 2, now: () => now },
    });
    for (let i = 0; i < 2; i++) {
      const opened = await open(harness.url);
      expect(opened.ok).toBe(true);
      await closeAndWait((opened as { socket: WebSocket }).socket);
    }
    now += 15_000;
    expect(await open(harness.url)).toEqual({ ok: false, status: 429, retryAfter: '45' });
    expect((await open(harness.url, { localAddress: '127.0.0.2' })).ok).toBe(true);
    now += 45_000;
    expect((await open(harness.url)).ok).toBe(true);
  });

  test('X-Forwarded-For from a trusted proxy: each forwarded client its own budget', async () => {
    harness = await startServer({
      ipLimits: { maxConnections: 1, connectionsPerMinute: 0, trustProxy: ['127.0.0.1'] },
    });
    const as = (ip: string) => ({ headers: { 'x-forwarded-for': `6.6.6.6, ${ip}` } });
    expect((await open(harness.url, as('203.0.113.1'))).ok).toBe(true);
    expect((await open(harness.url, as('203.0.113.2'))).ok).toBe(true);
    expect(await open(harness.url, as('203.0.113.1'))).toMatchObject({ ok: false, status: 429 });
  });

  test('X-Forwarded-For from an untrusted peer is ignored', async () => {
    harness = await startServer({
      ipLimits: { maxConnections: 1, connectionsPerMinute: 0, trustProxy: ['127.0.0.1'] },
    });
    const as = (ip: string) => ({ localAddress: '127.0.0.2', headers: { 'x-forwarded-for': ip } });
    expect((await open(harness.url, as('203.0.113.1'))).ok).toBe(true);
    expect(await open(harness.url, as('203.0.113.2'))).toMatchObject({ ok: false, status: 429 });
  });

  test('sends per IP across connections: refused with rate_limited, echoing clientMessageId', async () => {
    harness = await startServer({
      replies: [{ body: answer }, { body: answer }],
      ipLimits: { sendsPerMinute: 2 },
      connection: { sendRate: { max: 100, windowMs: 60_000 } },
    });
    const one = await harness.connect();
    const two = await harness.connect();
    await one.hello();
    await two.hello();
    one.send({ type: 'send', text: 'hi', clientMessageId: 'a' });
    await one.turnEnd();
    two.send({ type: 'send', text: 'hi', clientMessageId: 'b' });
    await two.turnEnd();
    two.send({ type: 'send', text: 'again', clientMessageId: 'c' });
    const refused = await two.next((f) => f.type === 'error');
    expect(refused).toMatchObject({ type: 'error', code: ErrorCode.RateLimited, clientMessageId: 'c' });
    expect((refused as { retryInMs?: number }).retryInMs).toBeGreaterThan(0);
  });
});

describe('IpLimits', () => {
  test('remembers at most maxTrackedIps addresses, dropping the least recent idle one', () => {
    const limits = new IpLimits({ maxTrackedIps: 3, maxConnections: 1 });
    expect(limits.admit('1.1.1.1').ok).toBe(true);
    limits.opened('1.1.1.1');
    for (const ip of ['2.2.2.2', '3.3.3.3', '4.4.4.4', '5.5.5.5']) limits.admit(ip);
    expect(limits.trackedIps).toBe(3);
    // The one with a socket open was kept.
    expect(limits.openConnections('1.1.1.1')).toBe(1);
    expect(limits.admit('1.1.1.1').ok).toBe(false);
    limits.release('1.1.1.1');
    expect(limits.admit('1.1.1.1').ok).toBe(true);
  });

  test('0 is no limit; release never goes below zero', () => {
    const limits = new IpLimits({ maxConnections: 0, connectionsPerMinute: 0, sendsPerMinute: 0 });
    for (let i = 0; i < 100; i++) {
      expect(limits.admit('1.1.1.1').ok).toBe(true);
      limits.opened('1.1.1.1');
    }
    const other = new IpLimits();
    other.release('9.9.9.9');
    expect(other.openConnections('9.9.9.9')).toBe(0);
  });
});
