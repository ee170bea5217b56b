/**
 * Real sockets on 127.0.0.1: a Fastify app with the plugin, listening on a free port,
 * and a test client that records every frame and can wait for the one it needs.
 */
import { emptyView, reduce, type ChatView, type ServerFrame } from '@aalis/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import type { HistoryStore } from '../src/history/store.js';
import type { OpenAIProviderOptions } from '../src/providers/openai/index.js';
import type { ChatProvider } from '../src/providers/core/types.js';
import { aalisChat, type AalisChatOptions } from '../src/adapters/fastify-plugin.js';
import { startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import { openAIOn } from './provider-helpers.js';

export interface Harness {
  app: FastifyInstance;
  url: string;
  upstream?: FakeUpstream;
  connect(options?: { origin?: string }): Promise<TestClient>;
  close(): Promise<void>;
}

export async function startServer(
  options: Partial<AalisChatOptions> & {
    replies?: Reply[];
    provider?: ChatProvider;
    store?: HistoryStore;
    /** Receives the server's log, one JSON line per entry (no log when absent). */
    log?: { write(line: string): void };
    /** Timeouts and retries of the OpenAI provider made on the fake upstream. */
    providerOptions?: Partial<OpenAIProviderOptions>;
  } = {},
): Promise<Harness> {
  const { replies, log, providerOptions, ...rest } = options;
  const upstream = replies ? await startFakeUpstream(replies) : undefined;
  const app = Fastify({ logger: log ? { level: 'info', stream: log } : false });
  // An agent answers instead of a model: no provider then.
  if (rest.agent) await app.register(aalisChat, rest);
  else {
    const provider = options.provider ?? openAIOn(upstream?.url ?? 'http://127.0.0.1:9', providerOptions);
    await app.register(aalisChat, { model: 'test-model', ...rest, provider });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  const url = `ws://127.0.0.1:${address.port}/ws`;
  const clients: TestClient[] = [];
  return {
    app,
    url,
    ...(upstream ? { upstream } : {}),
    connect: async (connectOptions = {}) => {
      const client = await TestClient.open(url, connectOptions.origin);
      clients.push(client);
      return client;
    },
    close: async () => {
      for (const client of clients) client.socket.terminate();
      await app.close();
      await upstream?.close();
    },
  };
}

export class TestClient {
  readonly frames: ServerFrame[] = [];
  /** The view a client builds from what it received, with the shared reducer. */
  view: ChatView = emptyView;
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ServerFrame;
      this.frames.push(frame);
      this.view = reduce(this.view, frame, Date.now());
      this.#waiters.forEach((wake) => wake());
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.#waiters.forEach((wake) => wake());
      }),
    );
  }

  /** A client on a socket just opened (before any frame can have come). */
  static wrap(socket: WebSocket): TestClient {
    return new TestClient(socket);
  }

  static open(url: string, origin?: string): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, origin ? { origin } : {});
      const client = new TestClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      socket.once('error', reject);
    });
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** `anonymousKey`: the key an earlier `ready` gave this visitor (another tab of the same browser). */
  hello(
    sessionId?: string,
    token?: string,
    anonymousKey?: string,
    features?: string[],
  ): Promise<ServerFrame & { type: 'ready' }> {
    this.send({
      type: 'hello',
      protocol: 1,
      ...(features ? { features } : {}),
      ...(sessionId ? { sessionId } : {}),
      ...(token ? { token } : {}),
      ...(anonymousKey ? { anonymousKey } : {}),
    });
    return this.next((f): f is ServerFrame & { type: 'ready' } => f.type === 'ready');
  }

  /** The first frame from `from` on that matches; waits for it. */
  async next<T extends ServerFrame>(
    match: ((frame: ServerFrame) => frame is T) | ((frame: ServerFrame) => boolean),
    { from = 0, timeoutMs = 10_000 } = {},
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found as T;
      if (this.socket.readyState === WebSocket.CLOSED)
        throw new Error('socket closed while waiting for a frame');
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no matching frame in ${timeoutMs} ms; got ${this.frames.map((f) => f.type).join(',')}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.#waiters = [];
    }
  }

  /** Waits for the final `message` of the turn. */
  turnEnd(from = 0, timeoutMs = 10_000) {
    return this.next((f): f is ServerFrame & { type: 'message' } => f.type === 'message', {
      from,
      timeoutMs,
    });
  }

  of<T extends ServerFrame['type']>(type: T): Array<Extract<ServerFrame, { type: T }>> {
    return this.frames.filter((f): f is Extract<ServerFrame, { type: T }> => f.type === type);
  }
}
