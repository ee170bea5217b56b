/**
 * HTTP as an attacker or a proxy sends it, on real sockets: any Host, any method, no Host
 * at all (HTTP/1.0), from a chosen local address; and the server's pino log, captured.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { aalisChat, type AalisChatOptions } from '../src/adapters/fastify-plugin.js';
import { openAIOn } from './provider-helpers.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body as it came over the wire (still compressed, when it was). */
  bytes: Buffer;
}

/** One request to `address:port`, with exactly the headers given (Host included). */
export function httpRequest(
  port: number,
  path: string,
  {
    method = 'GET',
    headers = {},
    address = '127.0.0.1',
  }: {
    method?: string;
    headers?: Record<string, string>;
    address?: string;
  } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString(), bytes });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** An HTTP/1.0 request without a Host header; resolves with the status code. */
export function http10WithoutHost(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

/** Opens a WebSocket with the given Host and Origin; resolves with the open socket or the HTTP status. */
export function upgrade(
  port: number,
  { host, origin }: { host?: string; origin?: string },
): Promise<{ socket?: WebSocket; status?: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, {
      ...(origin ? { origin } : {}),
      ...(host ? { headers: { host } } : {}),
    });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });
}

/** This machine's first non-loopback IPv4 address, to be a caller that is not on loopback. */
export function externalAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  return undefined;
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** Fastify's own lines for every request; what a refusal adds is everything else. */
const ROUTINE = /^(incoming request|request completed|Server listening at )/;

export interface LoggedServer {
  app: FastifyInstance;
  port: number;
  lines: LogLine[];
  /** The lines that are not Fastify's per-request routine. */
  notable(): LogLine[];
  close(): Promise<void>;
}

/** The plugin on a real port, its info-level log collected line by line. */
export async function startLoggedServer(
  options: Partial<AalisChatOptions> = {},
  listenHost = '127.0.0.1',
): Promise<LoggedServer> {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  await app.register(aalisChat, {
    model: 'test-model',
    provider: openAIOn('http://127.0.0.1:9'),
    ...options,
  });
  await app.listen({ port: 0, host: listenHost });
  const { port } = app.server.address() as { port: number };
  return {
    app,
    port,
    lines,
    notable: () => lines.filter((line) => !ROUTINE.test(line.msg)),
    close: () => app.close(),
  };
}
