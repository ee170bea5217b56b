/**
 * The same admission and metrics cases through both adapters, on real sockets: the Fastify
 * plugin (fastify-plugin.ts) and the plain `ws` one (use-ws.ts) run one transport core
 * (transport/chat-endpoint.ts), so each case below must come out alike on both: the
 * status and body of a refused upgrade, its one log line, its `connection:refused` event
 * and its count, the connections gauge, and the `error` frames counted by code.
 */
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { CloseCode, ErrorCode } from '@aalis/protocol';
import Fastify from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { aalisChat, type AalisChatOptions } from '../src/adapters/fastify-plugin.js';
import { attachAalisChat } from '../src/adapters/use-ws.js';
import { DemoProvider } from '../src/providers/demo/index.js';
import { DEMO_MODEL } from '../src/providers/demo/model-server.js';
import type { ChatEventMap, ChatEvents } from '../src/transport/chat-events.js';
import type { SharedIpRates } from '../src/transport/ip-limits.js';
import { AddressSends, MemoryBudgetStore } from '../src/budgets/index.js';
import { sample } from './metrics-sample.js';
import { TestClient } from './ws-harness.js';

type Options = Partial<AalisChatOptions>;

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  [key: string]: unknown;
}

/** One adapter, started on a free loopback port. */
interface Running {
  port: number;
  url: string;
  log: LogLine[];
  events: ChatEvents;
  /** The Prometheus text, as the adapter's host would read it. */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

const PINO_LEVELS: Record<number, LogLine['level']> = { 20: 'debug', 30: 'info', 40: 'warn', 50: 'error' };

async function startFastify(options: Options, provider: DemoProvider): Promise<Running> {
  const log: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) {
        if (!text) continue;
        const { level, ...line } = JSON.parse(text) as { level: number; msg: string };
        log.push({ ...line, level: PINO_LEVELS[level] ?? 'info' });
      }
      done();
    },
  });
  const app = Fastify({ logger: { level: 'debug', stream } });
  await app.register(aalisChat, { provider, model: DEMO_MODEL, ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    port,
    url: `ws://127.0.0.1:${port}/ws`,
    log,
    events: app.aalis.events,
    // GET /metrics, from loopback: the metrics guard lets it through.
    metrics: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    close: () => app.close(),
  };
}

async function startPlain(options: Options, provider: DemoProvider): Promise<Running> {
  const log: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (object: object, msg: string): void => {
      log.push({ ...object, level, msg });
    };
  const http: Server = createServer((_request, response) => response.writeHead(404).end());
  const attached = attachAalisChat(http, {
    provider,
    model: DEMO_MODEL,
    logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    ...options,
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    port,
    url: `ws://127.0.0.1:${port}/ws`,
    log,
    events: attached.events,
    metrics: async () => (await attached.metrics.expose()).body,
    close: async () => {
      await attached.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const ADAPTERS = [
  { adapter: 'the Fastify plugin', start: startFastify },
  { adapter: 'the plain ws adapter', start: startPlain },
];

type Opened =
  | { ok: true; client: TestClient }
  | { ok: false; status: number; body: string; retryAfter: string | undefined };

/** An upgrade with the given Host and Origin: the open socket, or the HTTP answer it got. */
function open(running: Running, headers: { host?: string; origin?: string } = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const { origin, host } = headers;
    const socket = new WebSocket(running.url, {
      ...(origin ? { origin } : {}),
      ...(host ? { headers: { host } } : {}),
    });
    socket.once('open', () => {
      sockets.push(socket);
      resolve({ ok: true, client: TestClient.wrap(socket) });
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({ ok: false, status: response.statusCode ?? 0, body, retryAfter });
      });
    });
    socket.once('error', reject);
  });
}

/** Shared per-IP rates (as the cluster's Redis keeps them) that refuse `limit` the first `times` times. */
function refusingSharedRates(limit: 'ip_connections_per_minute', times: number) {
  let refusals = 0;
  const taken: string[] = [];
  const rates: SharedIpRates = {
    take: async (asked, ip) => {
      taken.push(`${asked} ${ip}`);
      if (asked !== limit || refusals >= times) return { ok: true };
      refusals++;
      return { ok: false, limit: asked, retryInMs: 30_000 };
    },
  };
  return { rates, taken };
}

const sockets: WebSocket[] = [];
let running: Running | undefined;
let provider: DemoProvider | undefined;
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await running?.close();
  await provider?.close();
  running = undefined;
  provider = undefined;
});

/** An upgrade refused before it opened: what each case expects of it, whichever adapter. */
interface RefusalCase {
  name: string;
  /** Made afresh for each adapter. */
  options: () => Options;
  headers?: { host?: string; origin?: string };
  /** Sockets opened first (per-IP cases). */
  before?: number;
  status: number;
  body: string | RegExp;
  retryAfter?: string;
  reason: ChatEventMap['connection:refused']['reason'];
  line: Record<string, unknown>;
}

const REFUSALS: RefusalCase[] = [
  {
    name: 'a Host the server does not answer to: 403 naming AALIS_PUBLIC_HOSTS',
    options: () => ({ publicHosts: ['chat.example.com'] }),
    headers: { host: 'evil.example', origin: 'http://evil.example' },
    status: 403,
    body: /AALIS_PUBLIC_HOSTS/,
    reason: 'host',
    line: { msg: 'request refused: host not served', host: 'evil.example' },
  },
  {
    name: 'an Origin not on the list: 403',
    options: () => ({ allowedOrigins: ['https://shop.example.com'] }),
    headers: { origin: 'https://evil.example.com' },
    status: 403,
    body: '{"error":"origin not allowed"}',
    reason: 'origin',
    line: { msg: 'websocket refused: origin not allowed', origin: 'https://evil.example.com' },
  },
  {
    name: 'one socket more than the per-IP limit: 429 with Retry-After',
    options: () => ({ ipLimits: { maxConnections: 1, connectionsPerMinute: 0 } }),
    before: 1,
    status: 429,
    body: '{"error":"too many connections from this address"}',
    retryAfter: '60',
    reason: 'ip_connections',
    line: { msg: 'websocket refused: per-IP limit', ip: '127.0.0.1', limit: 'ip_connections' },
  },
  {
    name: "the cluster's shared rate of new sockets: 429 with its Retry-After",
    options: () => ({
      ipLimits: { maxConnections: 5, connectionsPerMinute: 10 },
      sharedIpRates: refusingSharedRates('ip_connections_per_minute', 1).rates,
    }),
    status: 429,
    body: /too many new connections/,
    retryAfter: '30',
    reason: 'ip_connections_per_minute',
    line: { msg: 'websocket refused: per-IP limit', ip: '127.0.0.1', limit: 'ip_connections_per_minute' },
  },
];

describe.each(ADAPTERS)('$adapter', ({ start }) => {
  const launch = async (options: Options = {}) => {
    provider = new DemoProvider({ speed: 0 });
    running = await start(options, provider);
    return running;
  };

  describe('admission', () => {
    test.each(REFUSALS)('$name', async (refusal) => {
      const server = await launch(refusal.options());
      const heard: Array<ChatEventMap['connection:refused']> = [];
      server.events.on('connection:refused', (event) => heard.push(event));
      for (let i = 0; i < (refusal.before ?? 0); i++) expect((await open(server)).ok).toBe(true);

      const answer = await open(server, refusal.headers);
      expect(answer.ok).toBe(false);
      const { status, body, retryAfter } = answer as Extract<Opened, { ok: false }>;
      expect(status).toBe(refusal.status);
      if (typeof refusal.body === 'string') expect(body).toBe(refusal.body);
      else expect(body).toMatch(refusal.body);
      expect(retryAfter).toBe(refusal.retryAfter);
      // One info line, the event, and its count.
      const lines = server.log.filter((line) => line.msg === refusal.line.msg);
      expect(lines).toEqual([expect.objectContaining({ level: 'info', ...refusal.line })]);
      expect(heard).toEqual([expect.objectContaining({ reason: refusal.reason, status: refusal.status })]);
      const text = await server.metrics();
      expect(sample(text, 'aalis_connections_refused_total', { reason: refusal.reason })).toBe(1);
      expect(sample(text, 'aalis_connections_open')).toBe(refusal.before ?? 0);
    });

    test('an allowed Origin, the same origin and no Origin open; the refused shared rate gave its slot back', async () => {
      const { rates, taken } = refusingSharedRates('ip_connections_per_minute', 1);
      const server = await launch({
        allowedOrigins: ['https://shop.example.com'],
        ipLimits: { maxConnections: 3, connectionsPerMinute: 10 },
        sharedIpRates: rates,
      });
      expect((await open(server)).ok).toBe(false);
      for (const origin of ['https://shop.example.com', `http://127.0.0.1:${server.port}`, undefined]) {
        const opened = await open(server, origin ? { origin } : {});
        expect([origin, opened.ok]).toEqual([origin, true]);
      }
      // Three open at once is the limit: the refused one did not keep a slot.
      expect(taken).toEqual(Array(4).fill('ip_connections_per_minute 127.0.0.1'));
      expect(sample(await server.metrics(), 'aalis_connections_open')).toBe(3);
    });

    test('the token: missing or wrong closes 4401, the right one is served', async () => {
      const server = await launch({ token: 's3cret' });
      for (const token of ['wrong', undefined]) {
        const { client } = (await open(server)) as Extract<Opened, { ok: true }>;
        client.send({ type: 'hello', protocol: 1, ...(token ? { token } : {}) });
        expect(await client.closed).toEqual({
          code: CloseCode.Unauthorized,
          reason: 'wrong or missing token',
        });
      }
      const { client } = (await open(server)) as Extract<Opened, { ok: true }>;
      expect((await client.hello(undefined, 's3cret')).type).toBe('ready');
    });
  });

  describe('per-IP sends', () => {
    test.each([
      { limit: 'the address', fromOtherInstance: false },
      { limit: 'the address, counted by another instance on the shared store', fromOtherInstance: true },
    ])('over $limit: rate_limited, echoing clientMessageId, counted', async ({ fromOtherInstance }) => {
      const budgetStore = new MemoryBudgetStore();
      // Another instance on the same store took this minute's sends of 127.0.0.1.
      if (fromOtherInstance) await new AddressSends(budgetStore, 1).take('127.0.0.1');
      const server = await launch({
        ipLimits: { sendsPerMinute: 1 },
        connection: { sendRate: { max: 100, windowMs: 60_000 } },
        budgetStore,
      });
      const { client } = (await open(server)) as Extract<Opened, { ok: true }>;
      await client.hello();
      if (!fromOtherInstance) {
        client.send({ type: 'send', text: 'hi', clientMessageId: 'a' });
        await client.turnEnd();
      }
      client.send({ type: 'send', text: 'again', clientMessageId: 'b' });
      const refused = await client.next((frame) => frame.type === 'error');
      expect(refused).toMatchObject({ code: ErrorCode.RateLimited, clientMessageId: 'b' });
      expect((refused as { retryInMs: number }).retryInMs).toBeGreaterThan(0);
      expect((refused as { retryInMs: number }).retryInMs).toBeLessThanOrEqual(60_000);
      expect(sample(await server.metrics(), 'aalis_refusals_total', { code: 'rate_limited' })).toBe(1);
    });
  });

  describe('metrics', () => {
    test('the connections gauge follows sockets opening and closing, with their events', async () => {
      const server = await launch();
      const seen: string[] = [];
      server.events.on('connection:opened', () => seen.push('opened'));
      server.events.on('connection:closed', ({ code }) => seen.push(`closed ${code}`));
      const one = (await open(server)) as Extract<Opened, { ok: true }>;
      const two = (await open(server)) as Extract<Opened, { ok: true }>;
      await Promise.all([one.client.hello(), two.client.hello()]);
      expect(sample(await server.metrics(), 'aalis_connections_open')).toBe(2);
      one.client.socket.close(1000);
      await one.client.closed;
      await expect.poll(async () => sample(await server.metrics(), 'aalis_connections_open')).toBe(1);
      expect(seen).toEqual(['opened', 'opened', 'closed 1000']);
    });

    test('error frames are counted by code as they are sent, each with an error:sent event', async () => {
      const server = await launch();
      const sent: string[] = [];
      server.events.on('error:sent', ({ code }) => sent.push(code));
      const { client } = (await open(server)) as Extract<Opened, { ok: true }>;
      await client.hello();
      client.send({ type: 'no_such_frame' });
      client.send({ type: 'send' });
      client.send({ type: 'no_such_frame' });
      await client.next((_frame) => client.of('error').length === 3);
      expect(sent).toEqual([ErrorCode.UnknownType, ErrorCode.BadFrame, ErrorCode.UnknownType]);
      const text = await server.metrics();
      expect(sample(text, 'aalis_refusals_total', { code: ErrorCode.UnknownType })).toBe(2);
      expect(sample(text, 'aalis_refusals_total', { code: ErrorCode.BadFrame })).toBe(1);
    });
  });
});
