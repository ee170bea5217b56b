/**
 * The server's HTTP surface as an attacker sees it, on real sockets: which Host it
 * answers to (DNS rebinding), the security headers, OPTIONS and CORS preflights, what
 * /healthz tells whom, and what a refusal costs the log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import type WebSocket from 'ws';
import { createAalisServer, type AalisServer } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config/server-config.js';
import { startCli } from './cli-harness.js';
import {
  externalAddress,
  http10WithoutHost,
  httpRequest,
  startLoggedServer,
  upgrade,
  type LoggedServer,
} from './http-harness.js';

const widgetDir = mkdtempSync(join(tmpdir(), 'aalis-widget-'));
const widgetFile = join(widgetDir, 'aalis-chat.js');
writeFileSync(widgetFile, 'export {};\n');
afterAll(() => rmSync(widgetDir, { recursive: true, force: true }));

let server: LoggedServer | undefined;
let whole: AalisServer | undefined;
afterEach(async () => {
  await server?.close();
  await whole?.close();
  server = whole = undefined;
});

/** The routes the Host guards: every one but public health, which says only "ok". */
const ROUTES = ['/ws', '/healthz/details', '/aalis-chat.js', '/origin-check'];

describe('Host: the server answers only to its own names (DNS rebinding)', () => {
  test('a rebinding page (Origin and Host both evil.example) cannot open the socket', async () => {
    server = await startLoggedServer();
    const evil = `evil.example:${server.port}`;
    const refused = await upgrade(server.port, { host: evil, origin: `http://${evil}` });
    expect(refused.socket).toBeUndefined();
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('AALIS_PUBLIC_HOSTS');
  });

  test('every route, every method, refuses an unknown Host with 403 naming AALIS_PUBLIC_HOSTS', async () => {
    server = await startLoggedServer({ widgetFile, publicHosts: ['chat.example.com'] });
    for (const path of ROUTES) {
      for (const method of ['GET', 'HEAD', 'OPTIONS']) {
        const answer = await httpRequest(server.port, path, { method, headers: { host: 'evil.example' } });
        expect([path, method, answer.status]).toEqual([path, method, 403]);
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        if (method !== 'HEAD') expect(answer.body).toMatch(/AALIS_PUBLIC_HOSTS/);
      }
    }
  });

  test('public health answers "ok" under any Host, as load balancers and container probes ask by IP', async () => {
    server = await startLoggedServer({ publicHosts: ['chat.example.com'] });
    for (const host of ['10.1.2.3:8787', 'evil.example']) {
      const answer = await httpRequest(server.port, '/healthz', { headers: { host } });
      expect([host, answer.status, answer.body]).toEqual([host, 200, '{"ok":true}']);
    }
    // The details stay behind both guards.
    expect(
      (await httpRequest(server.port, '/healthz/details', { headers: { host: 'evil.example' } })).status,
    ).toBe(403);
  });

  test("a container network's service name (with an underscore) can be configured and served", async () => {
    expect(loadConfig({ AALIS_PUBLIC_HOSTS: 'aalis_chat' }).publicHosts).toEqual(['aalis_chat']);
    server = await startLoggedServer({ publicHosts: ['aalis_chat'] });
    const answer = await httpRequest(server.port, '/origin-check', {
      headers: { host: `aalis_chat:${server.port}` },
    });
    expect(answer.status).toBe(200);
  });

  test('a request without Host (HTTP/1.0) is refused', async () => {
    server = await startLoggedServer();
    expect(await http10WithoutHost(server.port, '/origin-check')).toBe(403);
  });

  test('loopback names on any port and the configured hosts are served; a configured port must match', async () => {
    server = await startLoggedServer({ publicHosts: ['chat.example.com', 'other.example:8443'] });
    const port = server.port;
    const served = [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      '127.8.9.10:1234',
      `[::1]:${port}`,
      'chat.example.com',
      `Chat.Example.com:${port}`,
      'chat.example.com.:443',
      'other.example:8443',
    ];
    for (const host of served)
      expect([host, (await httpRequest(port, '/origin-check', { headers: { host } })).status]).toEqual([
        host,
        200,
      ]);
    const refused = [
      'other.example',
      'other.example:443',
      'sub.chat.example.com',
      'chat.example.com.evil.example',
      'localhost.evil.example',
      '128.0.0.1',
      '[::2]',
      'chat.example.com:0',
      'chat.example.com:99999',
      'user@chat.example.com',
    ];
    for (const host of refused)
      expect([host, (await httpRequest(port, '/origin-check', { headers: { host } })).status]).toEqual([
        host,
        403,
      ]);
  });

  test('same-origin is the Origin matching a served Host; "*" serves any well-formed Host', async () => {
    server = await startLoggedServer({ publicHosts: ['chat.example.com'] });
    const host = `chat.example.com:${server.port}`;
    const same = await upgrade(server.port, { host, origin: `http://${host}` });
    expect(same.socket).toBeDefined();
    same.socket!.close();
    expect((await upgrade(server.port, { host, origin: 'http://evil.example' })).status).toBe(403);
    await server.close();

    server = await startLoggedServer({ publicHosts: ['*'] });
    expect(
      (await httpRequest(server.port, '/origin-check', { headers: { host: 'anything.example' } })).status,
    ).toBe(200);
    expect(
      (await httpRequest(server.port, '/origin-check', { headers: { host: 'not a host' } })).status,
    ).toBe(403);
  });

  test('the whole server refuses unknown Hosts on every route, its 404s and routes added later included', async () => {
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      AALIS_DATA_DIR: ':memory:',
      // The host's own page at / (the server's is off).
      AALIS_PAGE: 'off',
    });
    whole = await createAalisServer(config, {});
    whole.app.get('/', async () => 'the page');
    await whole.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = whole.app.server.address() as { port: number };
    for (const path of ['/', '/no-such-page', '/origin-check']) {
      const evil = await httpRequest(port, path, { headers: { host: 'evil.example' } });
      expect([path, evil.status]).toEqual([path, 403]);
      expect(evil.body).toContain('AALIS_PUBLIC_HOSTS');
    }
    // Every path answers OPTIONS, the page's included (it answered 404).
    const options = await httpRequest(port, '/', {
      method: 'OPTIONS',
      headers: { host: `localhost:${port}` },
    });
    expect([options.status, options.headers.allow]).toEqual([204, 'GET, HEAD, OPTIONS']);
    const missing = await httpRequest(port, '/no-such-page', { headers: { host: `localhost:${port}` } });
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect(missing.headers['referrer-policy']).toBe('no-referrer');
  });

  const lan = externalAddress();
  test.skipIf(!lan)('a server listening on one specific address answers to that address', async () => {
    const config = loadConfig({ HOST: lan!, PORT: '0', LOG_LEVEL: 'silent', AALIS_DATA_DIR: ':memory:' });
    expect(config.publicHosts).toEqual([lan]);
    whole = await createAalisServer(config, {});
    await whole.app.listen({ port: 0, host: lan! });
    const { port } = whole.app.server.address() as { port: number };
    const asListened = await httpRequest(port, '/origin-check', {
      address: lan!,
      headers: { host: `${lan}:${port}` },
    });
    expect(asListened.status).toBe(200);
    const rebound = await httpRequest(port, '/origin-check', {
      address: lan!,
      headers: { host: 'evil.example' },
    });
    expect(rebound.status).toBe(403);
  });
});

describe('AALIS_PUBLIC_HOSTS and AALIS_METRICS_TOKEN in the configuration', () => {
  test('entries are host names, normalised; HOST is added when it is one specific address', () => {
    expect(loadConfig({ AALIS_PUBLIC_HOSTS: ' Chat.Example.com , b.example:8443,* ' }).publicHosts).toEqual([
      'chat.example.com',
      'b.example:8443',
      '*',
    ]);
    expect(loadConfig({}).publicHosts).toEqual([]);
    expect(loadConfig({ HOST: '0.0.0.0' }).publicHosts).toEqual([]);
    expect(loadConfig({ HOST: '::' }).publicHosts).toEqual([]);
    expect(loadConfig({ HOST: '::1' }).publicHosts).toEqual([]);
    expect(loadConfig({ HOST: '192.168.1.20', AALIS_PUBLIC_HOSTS: 'chat.example.com' }).publicHosts).toEqual([
      'chat.example.com',
      '192.168.1.20',
    ]);
    expect(loadConfig({ HOST: 'fd00::2' }).publicHosts).toEqual(['[fd00::2]']);
    expect(loadConfig({ AALIS_METRICS_TOKEN: 'm3trics' }).metricsToken).toBe('m3trics');
  });

  test.each([
    ['https://chat.example.com', /AALIS_PUBLIC_HOSTS: "https:\/\/chat.example.com" is not a host name/],
    ['chat.example.com/chat', /AALIS_PUBLIC_HOSTS: "chat.example.com\/chat"/],
    ['chat.example.com:70000', /AALIS_PUBLIC_HOSTS: "chat.example.com:70000"/],
    ['*.example.com', /AALIS_PUBLIC_HOSTS: "\*.example.com"/],
  ])('"%s" is refused with one line naming the variable', (value, message) => {
    let error: unknown;
    try {
      loadConfig({ AALIS_PUBLIC_HOSTS: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  test('aalis-server says which hosts it answers to when it starts (the built command)', async () => {
    const cli = await startCli({
      PORT: '0',
      HOST: '127.0.0.1',
      AALIS_PUBLIC_HOSTS: 'chat.example.com',
      AALIS_DATA_DIR: ':memory:',
      LOG_LEVEL: 'silent',
    });
    try {
      expect(cli.output().split('\n')[0]).toMatch(
        /answers to localhost, 127\.0\.0\.1, \[::1\], chat\.example\.com/,
      );
    } finally {
      cli.child.kill('SIGTERM');
    }
  });
});

describe('security headers', () => {
  test('nosniff and no-referrer on every route; the script may be loaded cross-origin', async () => {
    server = await startLoggedServer({ widgetFile });
    const host = { host: `127.0.0.1:${server.port}` };
    for (const path of ['/healthz', '/healthz/details', '/origin-check', '/aalis-chat.js', '/ws']) {
      const answer = await httpRequest(server.port, path, { headers: host });
      expect([path, answer.headers['x-content-type-options']]).toEqual([path, 'nosniff']);
      expect([path, answer.headers['referrer-policy']]).toEqual([path, 'no-referrer']);
    }
    const script = await httpRequest(server.port, '/aalis-chat.js', { headers: host });
    expect(script.status).toBe(200);
    expect(script.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(script.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('OPTIONS', () => {
  test('every route answers 204 with Allow', async () => {
    server = await startLoggedServer({ widgetFile });
    const allow: Record<string, string> = {
      '/ws': 'GET, OPTIONS',
      '/healthz': 'GET, HEAD, OPTIONS',
      '/healthz/details': 'GET, HEAD, OPTIONS',
      '/aalis-chat.js': 'GET, HEAD, OPTIONS',
      '/origin-check': 'GET, HEAD, OPTIONS',
    };
    for (const [path, methods] of Object.entries(allow)) {
      const answer = await httpRequest(server.port, path, {
        method: 'OPTIONS',
        headers: { host: `localhost:${server.port}` },
      });
      expect([path, answer.status, answer.headers.allow]).toEqual([path, 204, methods]);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  test('the two public resources answer a CORS preflight from any origin', async () => {
    server = await startLoggedServer({ widgetFile });
    for (const path of ['/aalis-chat.js', '/origin-check']) {
      const answer = await httpRequest(server.port, path, {
        method: 'OPTIONS',
        headers: {
          host: `127.0.0.1:${server.port}`,
          origin: 'https://shop.example.com',
          'access-control-request-method': 'GET',
        },
      });
      expect(answer.status).toBe(204);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      expect(Number(answer.headers['access-control-max-age'])).toBeGreaterThan(0);
    }
  });
});

describe('/healthz', () => {
  const details = { ok: true, provider: 'openai', runningTurns: 0 };

  test('public health says only ok', async () => {
    server = await startLoggedServer();
    const answer = await httpRequest(server.port, '/healthz', {
      headers: { host: `127.0.0.1:${server.port}` },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true });
  });

  test('details: on this machine, or with the metrics token; never to a relayed request without it', async () => {
    server = await startLoggedServer({ metricsToken: 'm3trics' });
    const get = (headers: Record<string, string>) =>
      httpRequest(server!.port, '/healthz/details', {
        headers: { host: `127.0.0.1:${server!.port}`, ...headers },
      });

    const local = await get({});
    expect([local.status, JSON.parse(local.body)]).toEqual([200, details]);
    // A proxy on this machine connects from loopback for everyone: its requests are not local.
    const relayedHeaders: Array<Record<string, string>> = [
      { 'x-forwarded-for': '127.0.0.1' },
      { forwarded: 'for=127.0.0.1' },
    ];
    for (const relayed of relayedHeaders) {
      const answer = await get(relayed);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(answer.body).not.toContain('openai');
    }
    expect((await get({ 'x-forwarded-for': '1.2.3.4', authorization: 'Bearer wrong' })).status).toBe(401);
    const withToken = await get({ 'x-forwarded-for': '1.2.3.4', authorization: 'Bearer m3trics' });
    expect([withToken.status, JSON.parse(withToken.body)]).toEqual([200, details]);
  });

  test('without a token configured, details are for this machine only (403 elsewhere)', async () => {
    server = await startLoggedServer();
    const relayed = await httpRequest(server.port, '/healthz/details', {
      headers: { host: `127.0.0.1:${server.port}`, 'x-forwarded-for': '1.2.3.4', authorization: 'Bearer x' },
    });
    expect(relayed.status).toBe(403);
    expect(relayed.body).toContain('AALIS_METRICS_TOKEN');
  });

  const lan = externalAddress();
  test.skipIf(!lan)('a caller on another address gets no details without the token', async () => {
    server = await startLoggedServer({ metricsToken: 'm3trics', publicHosts: [lan!] }, '0.0.0.0');
    const from = (headers: Record<string, string>) =>
      httpRequest(server!.port, '/healthz/details', { address: lan!, headers: { host: lan!, ...headers } });
    expect((await from({})).status).toBe(401);
    expect((await from({ authorization: 'Bearer m3trics' })).status).toBe(200);
  });
});

describe('the log: a refusal is one line at info or warn, without a stack', () => {
  /** Waits until the log holds a notable line matching `match`. */
  async function logged(match: (line: { msg: string }) => boolean): Promise<void> {
    for (let i = 0; i < 100 && !server!.notable().some(match); i++)
      await new Promise((r) => setTimeout(r, 20));
  }

  function expectOneQuietLine(): void {
    const notable = server!.notable();
    expect(notable).toHaveLength(1);
    expect(notable[0]!.level).toBeGreaterThanOrEqual(30);
    expect(notable[0]!.level).toBeLessThanOrEqual(40);
    expect(server!.lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(JSON.stringify(server!.lines)).not.toContain('stack');
  }

  test('a 100 KB frame closes the socket 1009 and logs one line', async () => {
    server = await startLoggedServer();
    const opened = await upgrade(server.port, {});
    const socket = opened.socket!;
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send('x'.repeat(100_000));
    expect(await closed).toBe(1009);
    await logged((line) => line.msg === 'connection closed');
    expectOneQuietLine();
    expect(server.notable()[0]).toMatchObject({ msg: 'connection closed', code: 1009 });
  });

  test('twenty of them log twenty lines, none an error', async () => {
    server = await startLoggedServer();
    for (let i = 0; i < 20; i++) {
      const socket = (await upgrade(server.port, {})).socket!;
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.send('x'.repeat(100_000));
      await closed;
    }
    for (let i = 0; i < 100 && server.notable().length < 20; i++) await new Promise((r) => setTimeout(r, 20));
    expect(server.notable().map((line) => [line.level, line.code])).toEqual(Array(20).fill([30, 1009]));
  });

  test.each([
    ['a binary frame', (socket: WebSocket) => socket.send(Buffer.from([1, 2, 3])), 1003],
    ['a bad hello', (socket: WebSocket) => socket.send('{"type":"send"}'), 4400],
  ])('%s logs one line', async (_, misbehave, code) => {
    server = await startLoggedServer();
    const socket = (await upgrade(server.port, {})).socket!;
    const closed = new Promise<number>((resolve) => socket.once('close', (c) => resolve(c)));
    misbehave(socket);
    expect(await closed).toBe(code);
    await logged((line) => line.msg === 'connection closed');
    expectOneQuietLine();
    expect(server.notable()[0]).toMatchObject({ code });
  });

  test('a refused origin and a refused host log one line each', async () => {
    server = await startLoggedServer({ allowedOrigins: ['https://shop.example.com'] });
    expect((await upgrade(server.port, { origin: 'https://evil.example' })).status).toBe(403);
    await logged(() => true);
    expectOneQuietLine();
    server.lines.length = 0;
    expect((await upgrade(server.port, { host: 'evil.example' })).status).toBe(403);
    await logged(() => true);
    expectOneQuietLine();
    expect(server.notable()[0]).toMatchObject({
      msg: 'request refused: host not served',
      host: 'evil.example',
    });
  });
});
