import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { fixture } from './fake-upstream.js';
import { AALIS_SERVER_BIN as bin, startCli } from './cli-harness.js';
import { TestClient, startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('graceful shutdown', () => {
  test('a running turn is told shutting_down, its answer is stored, sockets close with 1001', async () => {
    server = await startServer({
      replies: [{ body: fixture('openai-long-tool-call.sse'), pieces: 600, delayMs: 4 }],
    });
    const client = await server.connect();
    const { sessionId } = await client.hello();
    client.send({ type: 'send', text: 'long one' });
    await client.next((f) => f.type === 'stream' && !!f.toolCallProgress);
    const closing = server.app.close();
    expect((await client.closed).code).toBe(1001);
    await closing;
    const error = client.of('error')[0];
    expect(error).toMatchObject({ code: 'shutting_down', sessionId });
    // Not the visitor's Stop: the message, live and stored, says the server stopped it.
    const stopped = {
      status: 'error',
      error: { code: 'shutting_down', message: 'the server restarted and stopped this answer' },
    };
    expect(client.of('message')[0]?.message).toMatchObject(stopped);
    const stored = (await server.app.aalis.store.page(sessionId, { limit: 10 })).messages;
    expect(stored.map((m) => [m.role, m.status, m.error?.code])).toEqual([
      ['user', undefined, undefined],
      ['assistant', 'error', 'shutting_down'],
    ]);
    expect(client.of('tool_execute')).toEqual([]);
    server = undefined;
  });
});

describe('HTTP routes', () => {
  test('/healthz answers 200 and says nothing more; the details answer loopback', async () => {
    server = await startServer();
    const base = server.url.replace('ws://', 'http://').replace('/ws', '');
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const details = await fetch(`${base}/healthz/details`);
    expect(await details.json()).toEqual({ ok: true, provider: 'openai', runningTurns: 0 });
  });

  test('/origin-check tells a page whether its origin may open the socket, with CORS', async () => {
    server = await startServer({ allowedOrigins: ['https://shop.example.com'] });
    const url = server.url.replace('ws://', 'http://').replace('/ws', '/origin-check');
    for (const [origin, allowed] of [
      ['https://shop.example.com', true],
      ['https://evil.example.com', false],
    ] as const) {
      const res = await fetch(url, { headers: { origin } });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({ allowed });
    }
  });

  test('/aalis-chat.js: 404 with advice when not built; served with CORS, caching and ETag when it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-widget-'));
    try {
      const file = join(dir, 'aalis-chat.js');
      server = await startServer({ widgetFile: file });
      const url = server.url.replace('ws://', 'http://').replace('/ws', '/aalis-chat.js');
      const missing = await fetch(url);
      expect(missing.status).toBe(404);
      expect(await missing.text()).toMatch(/npm run build -w @aalis\/widget/);

      writeFileSync(file, 'customElements.define("x-y", class extends HTMLElement {});');
      const served = await fetch(url, { headers: { origin: 'https://shop.example.com' } });
      expect(served.status).toBe(200);
      expect(served.headers.get('access-control-allow-origin')).toBe('*');
      expect(served.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(served.headers.get('cache-control')).toMatch(/max-age/);
      expect(await served.text()).toContain('customElements.define');
      const again = await fetch(url, { headers: { 'if-none-match': served.headers.get('etag')! } });
      expect(again.status).toBe(304);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('aalis-server', () => {
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH!, ...env } });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, out, err }));
    });

  test('--help lists every variable with its default', async () => {
    const { code, out } = await run(['--help'], {});
    expect(code).toBe(0);
    for (const name of [
      'PORT',
      'HOST',
      'AALIS_PROVIDER',
      'AALIS_DATA_DIR',
      'AALIS_ALLOWED_ORIGINS',
      'OLLAMA_HOST',
    ]) {
      expect(out).toContain(name);
    }
    expect(out).toContain('(default: 8787)');
  });

  test.each([
    [{ PORT: 'eighty' }, 'aalis-server: PORT must be a number from 0 to 65535; it is "eighty"'],
    [{ AALIS_PROVIDER: 'openai' }, 'aalis-server: OPENAI_API_KEY is required when AALIS_PROVIDER is openai'],
    [
      { AALIS_ALLOWED_ORIGINS: 'shop.example.com' },
      'aalis-server: AALIS_ALLOWED_ORIGINS: "shop.example.com" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains',
    ],
  ])('bad configuration %o prints one line and exits 2', async (env, line) => {
    const { code, err } = await run([], env);
    expect(code).toBe(2);
    expect(err.trim()).toBe(line);
  });

  test('a port in use is one line naming it and what to change, exit 2', async () => {
    const taken = createNetServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const { code, err } = await run([], { PORT: String(port), AALIS_DATA_DIR: ':memory:' });
      expect(code).toBe(2);
      expect(err.trim()).toBe(
        `aalis-server: port ${port} on 127.0.0.1 is already in use (another aalis-server, or npm start?): set PORT to a free port`,
      );
    } finally {
      taken.close();
    }
  });

  test('a data directory that cannot hold the history is one line, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-cli-'));
    try {
      writeFileSync(join(dir, 'a-file'), '');
      const { code, err } = await run([], { PORT: '0', AALIS_DATA_DIR: join(dir, 'a-file', 'data') });
      expect(code).toBe(2);
      expect(err.trim().split('\n')).toHaveLength(1);
      expect(err).toMatch(
        /^aalis-server: AALIS_DATA_DIR .*a-file\/data cannot hold the history \(ENOTDIR: .*\): set it to a writable directory, or to :memory:/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('history is durable by default: SQLite in ./aalis-data, and the start line says where', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'aalis-cli-cwd-'));
    const cli = await startCli({ PORT: '0' }, cwd);
    try {
      expect(cli.output()).toContain(`history in ${join(cwd, 'aalis-data')}`);
      expect(existsSync(join(cwd, 'aalis-data', 'aalis.sqlite'))).toBe(true);
    } finally {
      cli.child.kill('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test('serves a demo turn with SQLite history, logs a line per turn and connection, and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aalis-cli-'));
    const cli = await startCli({ PORT: '0', AALIS_DATA_DIR: dataDir });
    const { child, base } = cli;
    try {
      expect(cli.output()).toMatch(/provider demo, model aalis-demo, history in /);
      const client = await TestClient.open(`${base.replace('http', 'ws')}/ws`);
      await client.hello();
      client.send({ type: 'send', text: 'hello' });
      expect((await client.turnEnd()).message.status).toBe('complete');
      client.socket.close();
      await cli.waitForOutput(/"msg":"connection closed"/);
      expect(cli.output()).toMatch(/"msg":"turn ended"/);
      // One line per HTTP request, not Fastify's two: read once the request's line is out
      // (Fastify's own "incoming request" would come before it, on the same stream).
      await fetch(`${base}/healthz`);
      await cli.waitForOutput(/"url":"\/healthz"/);
      const lines = cli
        .output()
        .split('\n')
        .filter((line) => line.includes('/healthz'));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        msg: 'request',
        method: 'GET',
        url: '/healthz',
        status: 200,
      });
      expect(cli.output()).not.toContain('incoming request');
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
