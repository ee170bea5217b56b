/**
 * The transport core (chat-server.ts) driven through the plain `ws` adapter (use-ws.ts),
 * with no Fastify anywhere: a node:http server on loopback, real `ws` clients, and the
 * scripted demo model behind the real OpenAI provider. What the plugin's tests show for
 * Fastify holds here too: the checks before the upgrade, the protocol, the heartbeat,
 * the close code of a refused frame, and the graceful close at shutdown. Last, the core
 * alone, fed text frames by a transport that is not ws at all.
 */
import { createServer, type Server } from 'node:http';
import type { ServerFrame } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { DEMO_MODEL, DemoProvider } from '../src/providers/demo/index.js';
import { createChatServer } from '../src/transport/chat-server.js';
import { createChatServices } from '../src/compose/chat-services.js';
import {
  attachAalisChat,
  type AttachAalisChatOptions,
  type AttachedAalisChat,
} from '../src/adapters/use-ws.js';
import { upgrade } from './http-harness.js';
import { TestClient } from './ws-harness.js';

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  [key: string]: unknown;
}

interface PlainServer {
  http: Server;
  aalis: AttachedAalisChat;
  port: number;
  url: string;
  log: LogLine[];
  provider: DemoProvider;
}

let running: PlainServer | undefined;
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const socket of clients.splice(0)) socket.terminate();
  if (!running) return;
  await running.aalis.close();
  await new Promise((resolve) => running!.http.close(resolve));
  await running.provider.close();
  running = undefined;
});

/** A plain node:http server with the protocol attached, listening on a free loopback port. */
async function startPlain(
  options: Partial<AttachAalisChatOptions> & { speed?: number } = {},
): Promise<PlainServer> {
  const { speed = 0, ...rest } = options;
  const log: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (object: object, msg: string): void => {
      log.push({ ...object, level, msg });
    };
  const provider = new DemoProvider({ speed });
  const http = createServer((_request, response) => response.writeHead(404).end());
  const aalis = attachAalisChat(http, {
    provider,
    model: DEMO_MODEL,
    logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    ...rest,
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  running = { http, aalis, port, url: `ws://127.0.0.1:${port}/ws`, log, provider };
  return running;
}

async function connect(server: PlainServer, origin?: string): Promise<TestClient> {
  const client = await TestClient.open(server.url, origin);
  clients.push(client.socket);
  return client;
}

/** Waits until `condition` holds, checking every 10 ms, for at most `ms`. */
async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const closingLines = (server: PlainServer) => server.log.filter((line) => line.msg === 'connection closed');

describe('the protocol over a plain ws server', () => {
  test('hello gets ready; a send streams the demo model’s answer, then the final message', async () => {
    const server = await startPlain();
    const client = await connect(server);
    const ready = await client.hello();
    expect(ready.sessionId).toMatch(/^[\w-]{16,}$/);
    expect(server.aalis.chat.connections).toBe(1);

    client.send({ type: 'send', text: 'Show me some markdown with a table and code' });
    const end = await client.turnEnd();
    const deltas = client.of('stream').filter((frame) => frame.contentDelta);
    // Streamed in pieces, not as one block at the end.
    expect(deltas.length).toBeGreaterThan(5);
    const streamed = deltas.map((frame) => frame.contentDelta).join('');
    expect(streamed).toContain('| provider | progress | notes |');
    expect(end.message).toMatchObject({ role: 'assistant', status: 'complete' });
    expect(end.message.parts).toEqual([{ type: 'text', text: streamed }]);
    // What was streamed is what was stored.
    const stored = (await server.aalis.store.page(ready.sessionId, { limit: 10 })).messages;
    expect(stored.map((message) => [message.role, message.status ?? null])).toEqual([
      ['user', null],
      ['assistant', 'complete'],
    ]);

    client.socket.close();
    await until(() => server.aalis.chat.connections === 0);
    expect(closingLines(server)).toEqual([
      expect.objectContaining({ level: 'info', code: 1005, sessionId: ready.sessionId }),
    ]);
  });

  test('a frame over the limit closes 1009, and the closing line says 1009 with no error logged', async () => {
    const server = await startPlain({ maxFrameBytes: 1024 });
    const client = await connect(server);
    await client.hello();
    client.send({ type: 'send', text: 'x'.repeat(2_000) });
    expect((await client.closed).code).toBe(1009);
    await until(() => closingLines(server).length === 1);
    // The socket itself reports 1006; the refused frame's code is what the line must say.
    expect(closingLines(server)[0]).toMatchObject({ code: 1009 });
    expect(server.log.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
    expect(server.log.find((line) => line.msg === 'websocket frame refused')).toMatchObject({
      level: 'debug',
      code: 1009,
    });
  });
});

// Host, Origin, per-IP limits and the token: adapters-shared.test.ts, for both adapters.
describe('before the upgrade', () => {
  test('another path is not the socket: 404 when no other upgrade listener claims it', async () => {
    const server = await startPlain();
    const answer = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/elsewhere`);
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('open', () => reject(new Error('opened')));
      socket.once('error', reject);
    });
    expect(answer).toBe(404);
  });
});

describe('liveness', () => {
  test('a socket that does not answer pings is terminated; one that answers stays', async () => {
    // Long enough that a client of this same busy process answers a ping before the next one.
    const server = await startPlain({ heartbeatMs: 200 });
    const answering = await connect(server);
    await answering.hello();

    const silent = new WebSocket(server.url, { autoPong: false });
    clients.push(silent);
    let pings = 0;
    silent.on('ping', () => pings++);
    const silentClosed = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)));
    await new Promise((resolve) => silent.once('open', resolve));
    silent.send(JSON.stringify({ type: 'hello', protocol: 1 }));

    // Terminated, not closed: no close frame reaches the client.
    expect(await silentClosed).toBe(1006);
    expect(pings).toBeGreaterThanOrEqual(1);
    await until(() => server.aalis.chat.connections === 1);
    expect(closingLines(server)).toEqual([expect.objectContaining({ code: 1006 })]);

    // Several heartbeats later the client that answers is still served: three more pings,
    // each answered, and the socket never closed in between.
    await new Promise<void>((resolve, reject) => {
      let pings = 0;
      answering.socket.on('ping', () => ++pings === 3 && resolve());
      void answering.closed.then(({ code }) =>
        reject(new Error(`the answering socket was closed (${code})`)),
      );
    });
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    answering.send({ type: 'send', text: 'hello' });
    expect((await answering.turnEnd()).message.status).toBe('complete');
  });
});

describe('shutdown', () => {
  test('close() tells a running turn, stores its answer, closes every socket with 1001 and serves no more', async () => {
    // Real-time pacing, so that the answer is still being written when the server stops.
    const server = await startPlain({ speed: 1 });
    const writer = await connect(server);
    const { sessionId } = await writer.hello();
    const idle = await connect(server);
    await idle.hello();
    writer.send({ type: 'send', text: 'Write a long report to a file' });
    await writer.next((frame) => frame.type === 'stream' && !!frame.toolCallProgress);

    await server.aalis.close();
    for (const client of [writer, idle])
      expect(await client.closed).toEqual({ code: 1001, reason: 'server restarting: reconnect' });
    expect(writer.of('error')).toEqual([expect.objectContaining({ code: 'shutting_down', sessionId })]);
    expect(writer.of('message')[0]?.message).toMatchObject({
      status: 'error',
      error: { code: 'shutting_down' },
    });
    const stored = (await server.aalis.store.page(sessionId, { limit: 10 })).messages;
    expect(stored.map((message) => [message.role, message.status, message.error?.code])).toEqual([
      ['user', undefined, undefined],
      ['assistant', 'error', 'shutting_down'],
    ]);

    await until(() => server.aalis.chat.connections === 0);

    // The HTTP server still runs (it is the app's), but the socket is gone from it.
    const after = await upgrade(server.port, {});
    expect(after.status).toBe(404);
  });
});

describe('the core without ws', () => {
  /** A transport of text frames in memory: what the core writes, and how it closed the socket. */
  function textSocket() {
    return {
      sent: [] as ServerFrame[],
      closedWith: undefined as { code: number; reason: string } | undefined,
      bufferedAmount: 0,
      send(text: string) {
        this.sent.push(JSON.parse(text) as ServerFrame);
      },
      close(code: number, reason: string) {
        this.closedWith = { code, reason };
      },
    };
  }

  test('takes text frames from any transport, and closes what opens after it stopped', async () => {
    const provider = new DemoProvider({ speed: 0 });
    const quiet = { info() {}, warn() {}, error() {} };
    const { hub } = createChatServices({ provider, model: DEMO_MODEL }, quiet);
    const chat = createChatServer({ hub, logger: quiet });
    try {
      const socket = textSocket();
      const on = chat.opened(socket);
      on.message(JSON.stringify({ type: 'hello', protocol: 1 }));
      on.message(JSON.stringify({ type: 'send', text: 'hello' }));
      await until(() => socket.sent.some((frame) => frame.type === 'message'));
      expect(socket.sent[0]?.type).toBe('ready');
      expect(socket.sent.find((frame) => frame.type === 'message')).toMatchObject({
        message: { status: 'complete' },
      });

      await chat.closeAll();
      expect(socket.closedWith).toEqual({ code: 1001, reason: 'server restarting: reconnect' });
      on.closed(1001);
      expect(chat.connections).toBe(0);

      const late = textSocket();
      chat.opened(late);
      expect(late.closedWith).toEqual({ code: 1001, reason: 'server restarting: reconnect' });
      expect(chat.connections).toBe(0);
    } finally {
      chat.dispose();
      await provider.close();
    }
  });
});
