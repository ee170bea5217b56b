/**
 * Signed visitor identity on real sockets: every kind of bad token is closed 4401 with
 * the same reason (which check failed is in the log only), good ones from a shared secret
 * and from a JWKS served on loopback are ready, the two modes, the per-address throttle
 * of failed checks, and frames sent right behind a hello waiting for its check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FailureThrottle } from '../src/identity/failure-throttle.js';
import { createVisitorAuth, VISITOR_REFUSED_REASON } from '../src/identity/visitor-auth.js';
import type { AuthConfig } from '../src/identity/auth-config.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const OTHER_SECRET = 'another-secret-of-at-least-32-bytes-long';
const now = () => Math.floor(Date.now() / 1000);
const enc = (text: string) => new TextEncoder().encode(text);

function sign(
  claims: Record<string, unknown>,
  key: Uint8Array | CryptoKey = enc(SECRET),
  alg = 'HS256',
  kid?: string,
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, ...(kid ? { kid } : {}) }).sign(key);
}

const valid = (more: Record<string, unknown> = {}) => ({ sub: 'alice', exp: now() + 900, ...more });

/** The server's log, one parsed line each. */
function logSink() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A server with this identity configuration; a throttle that never trips unless asked. */
async function serve(auth: AuthConfig, { throttle = false } = {}) {
  const log = logSink();
  harness = await startServer({
    log,
    ...(throttle
      ? { auth }
      : { connection: { auth: createVisitorAuth(auth, { throttle: { max: 10_000 } }) } }),
  });
  return { harness, log };
}

function helloWith(client: TestClient, token?: string) {
  client.send({ type: 'hello', protocol: 1, ...(token === undefined ? {} : { token }) });
}

/** The socket closes 4401 with the generic reason, before any frame was sent to it. */
async function expectRefused(client: TestClient) {
  expect(await client.closed).toEqual({ code: 4401, reason: VISITOR_REFUSED_REASON });
  expect(client.frames).toEqual([]);
}

/** The visitor the connection was bound to, from its closing log line. */
async function visitorOf(client: TestClient, log: ReturnType<typeof logSink>) {
  client.socket.close();
  await client.closed;
  for (let i = 0; i < 50; i++) {
    const line = log.lines.find((l) => l.msg === 'connection closed');
    if (line) return line.visitor;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no closing line');
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('with a shared secret (HS256)', () => {
  const config: AuthConfig = {
    mode: 'optional',
    secret: SECRET,
    audience: 'aalis',
    issuer: 'https://shop.example.com',
  };
  const good = (more: Record<string, unknown> = {}) =>
    valid({ aud: 'aalis', iss: 'https://shop.example.com', ...more });

  test('a valid token is ready, as the signed visitor its sub names', async () => {
    const { harness, log } = await serve(config);
    const client = await harness.connect();
    const ready = await client.hello(undefined, await sign(good({ name: 'Alice' })));
    expect(ready.type).toBe('ready');
    expect(await visitorOf(client, log)).toBe('user:alice');
  });

  const bad: Array<[string, () => Promise<string>, RegExp]> = [
    ['a forged signature', () => sign(good(), enc(OTHER_SECRET)), /SIGNATURE_VERIFICATION_FAILED/],
    [
      'alg none',
      async () => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(good())}.`,
      /ERR_JOSE_ALG_NOT_ALLOWED|ERR_JWS_INVALID|ERR_JWT_INVALID|Unsecured/i,
    ],
    ['an expired token', () => sign(good({ exp: now() - 120 })), /ERR_JWT_EXPIRED/],
    ['a token not yet valid', () => sign(good({ nbf: now() + 600 })), /nbf/],
    ['a token issued in the future', () => sign(good({ iat: now() + 600 })), /iat/],
    ['an exp more than 24 h away', () => sign(good({ exp: now() + 25 * 3600 })), /24 h/],
    [
      'a token without exp',
      () => sign({ sub: 'alice', aud: 'aalis', iss: 'https://shop.example.com' }),
      /exp/,
    ],
    ['the wrong audience', () => sign(good({ aud: 'another-app' })), /aud/],
    ['the wrong issuer', () => sign(good({ iss: 'https://evil.example.com' })), /iss/],
    ['a missing sub', () => sign({ exp: now() + 900, aud: 'aalis', iss: 'https://shop.example.com' }), /sub/],
    ['an empty sub', () => sign(good({ sub: '' })), /sub/],
    ['a sub of 257 characters', () => sign(good({ sub: 'x'.repeat(257) })), /sub/],
    ['a sub that is not a string', () => sign(good({ sub: 42 })), /sub/],
    ['a token that is not a JWT', async () => 'not-a-jwt', /ERR_JW/],
  ];

  test.each(bad)(
    '%s closes 4401 with the generic reason; the log says which check failed',
    async (_name, token, why) => {
      const { harness, log } = await serve(config);
      const client = await harness.connect();
      helloWith(client, await token());
      await expectRefused(client);
      const refused = log.lines.find((line) => line.msg === 'visitor token refused');
      expect(refused?.level).toBe(30); // info
      expect(String(refused?.why)).toMatch(why);
      // Nothing the client received names the check.
      expect(VISITOR_REFUSED_REASON).not.toMatch(why);
    },
  );

  test('a sub of 256 characters is accepted', async () => {
    const { harness } = await serve(config);
    const client = await harness.connect();
    expect((await client.hello(undefined, await sign(good({ sub: 'x'.repeat(256) })))).type).toBe('ready');
  });

  test('30 s of clock difference are tolerated', async () => {
    const { harness } = await serve(config);
    const client = await harness.connect();
    const token = await sign(good({ exp: now() - 10, nbf: now() + 10 }));
    expect((await client.hello(undefined, token)).type).toBe('ready');
  });

  test('optional mode: no token is an anonymous visitor, each connection its own', async () => {
    const { harness, log } = await serve(config);
    const first = await harness.connect();
    expect((await first.hello()).type).toBe('ready');
    expect(await visitorOf(first, log)).toMatch(/^anon:[0-9a-f-]{36}$/);
    const ids = log.lines.filter((l) => l.msg === 'connection closed').map((l) => l.visitor);
    const second = await harness.connect();
    await second.hello();
    second.socket.close();
    await second.closed;
    const closing = () => log.lines.filter((l) => l.msg === 'connection closed');
    // The closing line is written once the server has handled the close, a moment after.
    await expect.poll(() => closing().length).toBeGreaterThanOrEqual(2);
    const all = closing().map((l) => l.visitor);
    expect(all).toHaveLength(2);
    expect(all[1]).not.toBe(ids[0]);
  });

  test('optional mode: a token that does not verify is refused, never made anonymous', async () => {
    const { harness } = await serve(config);
    const client = await harness.connect();
    helloWith(client, await sign(good(), enc(OTHER_SECRET)));
    await expectRefused(client);
  });

  test('required mode: no token closes 4401; a valid one is ready', async () => {
    const { harness } = await serve({ ...config, mode: 'required' });
    const anonymous = await harness.connect();
    helloWith(anonymous);
    await expectRefused(anonymous);
    const signed = await harness.connect();
    expect((await signed.hello(undefined, await sign(good()))).type).toBe('ready');
  });

  test('frames sent right behind the hello wait for its check, in order', async () => {
    const { harness } = await serve(config);
    const client = await harness.connect();
    // In one go: were the unknown frame handled before the hello, it would close 4400.
    helloWith(client, await sign(good()));
    client.send({ type: 'no_such_frame' });
    client.send({ type: 'no_such_frame_either' });
    await client.next((f) => f.type === 'error' && f.message.includes('either'));
    expect(client.frames.map((f) => f.type)).toEqual(['ready', 'error', 'error']);
  });

  test('after 10 failed tokens in a minute from one address, its tokens are refused unchecked', async () => {
    const { harness, log } = await serve({ ...config }, { throttle: true });
    for (let i = 0; i < 10; i++) {
      const client = await harness.connect();
      helloWith(client, await sign(good(), enc(OTHER_SECRET)));
      await expectRefused(client);
    }
    // Even a valid token: it is not looked at.
    const client = await harness.connect();
    helloWith(client, await sign(good()));
    await expectRefused(client);
    expect(log.lines.filter((l) => l.msg === 'visitor token refused').at(-1)?.why).toMatch(/not checked/);
    // A hello without a token is not a token check: still anonymous.
    const anonymous = await harness.connect();
    expect((await anonymous.hello()).type).toBe('ready');
  });

  test('the throttle forgets an address when its window ends', () => {
    let clock = 0;
    const throttle = new FailureThrottle({ max: 10, windowMs: 60_000, now: () => clock });
    for (let i = 0; i < 9; i++) throttle.failed('10.0.0.1');
    expect(throttle.blocked('10.0.0.1')).toBe(false);
    throttle.failed('10.0.0.1');
    expect(throttle.blocked('10.0.0.1')).toBe(true);
    expect(throttle.blocked('10.0.0.2')).toBe(false);
    clock = 59_999;
    expect(throttle.blocked('10.0.0.1')).toBe(true);
    clock = 60_000;
    expect(throttle.blocked('10.0.0.1')).toBe(false);
  });

  test('the throttle keeps at most maxAddresses addresses', () => {
    const throttle = new FailureThrottle({ max: 1, maxAddresses: 3 });
    for (const address of ['a', 'b', 'c', 'd']) throttle.failed(address);
    expect(throttle.blocked('a')).toBe(false);
    expect(throttle.blocked('d')).toBe(true);
  });
});

describe('with a JWKS on loopback (RS256, ES256, EdDSA)', () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let fetches = 0;
  const keys: Record<string, { privateKey: CryptoKey; publicKey: CryptoKey }> = {};

  beforeAll(async () => {
    const published: JWK[] = [];
    for (const alg of ['RS256', 'ES256', 'EdDSA']) {
      keys[alg] = await generateKeyPair(alg, { extractable: true });
      published.push({ ...(await exportJWK(keys[alg].publicKey)), kid: alg, alg, use: 'sig' });
    }
    jwksServer = createServer((_request, response) => {
      fetches++;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));

  test.each(['ES256', 'RS256', 'EdDSA'])('a token signed %s with a published key is ready', async (alg) => {
    const { harness, log } = await serve({ mode: 'required', jwksUrl });
    const client = await harness.connect();
    const token = await sign(valid({ sub: `${alg}-user` }), keys[alg]!.privateKey, alg, alg);
    expect((await client.hello(undefined, token)).type).toBe('ready');
    expect(await visitorOf(client, log)).toBe(`user:${alg}-user`);
  });

  test('the keys are fetched once and cached', async () => {
    const { harness } = await serve({ mode: 'required', jwksUrl });
    const before = fetches;
    for (let i = 0; i < 3; i++) {
      const client = await harness.connect();
      await client.hello(undefined, await sign(valid(), keys.ES256!.privateKey, 'ES256', 'ES256'));
    }
    expect(fetches - before).toBe(1);
  });

  test('HS/RS confusion: HS256 signed with the RSA public key as its secret is refused', async () => {
    const { harness, log } = await serve({ mode: 'required', jwksUrl });
    const pem = await exportSPKI(keys.RS256!.publicKey);
    const client = await harness.connect();
    helloWith(client, await sign(valid(), enc(pem), 'HS256', 'RS256'));
    await expectRefused(client);
    expect(log.lines.find((l) => l.msg === 'visitor token refused')?.why).toMatch(/ALG_NOT_ALLOWED/);
  });

  test('a key that is not published is refused', async () => {
    const { harness } = await serve({ mode: 'required', jwksUrl });
    const stranger = await generateKeyPair('ES256');
    const client = await harness.connect();
    helloWith(client, await sign(valid(), stranger.privateKey, 'ES256', 'ES256'));
    await expectRefused(client);
  });

  test('alg none is refused here too', async () => {
    const { harness } = await serve({ mode: 'required', jwksUrl });
    const client = await harness.connect();
    helloWith(client, `${base64url({ alg: 'none' })}.${base64url(valid())}.`);
    await expectRefused(client);
  });
});
