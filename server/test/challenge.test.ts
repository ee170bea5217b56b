/**
 * The bot challenge on real sockets, against a fake siteverify endpoint that speaks the
 * providers' format (form-encoded `secret`, `response`, `remoteip`; JSON `success`): an
 * anonymous visitor's send is refused with `challenge_required` until a hello carries a
 * token the verifier accepts; a refused token, or a verifier that cannot be reached, is
 * `challenge_failed` (fail closed); a pass holds for the anonymous key on its next
 * connection; a signed visitor is never asked.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ChallengeConfig } from '../src/identity/challenge-config.js';
import { createAalisServer } from '../src/app.js';
import { loadServerConfig } from '../src/config/server-config.js';
import { textAnswer, type Reply } from './fake-upstream.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

const SECRET = 'a-secret-of-at-least-32-bytes-for-tests!';
const answers = (count: number): Reply[] =>
  Array.from({ length: count }, (_, i) => ({ body: textAnswer(`Answer ${i}.`) }));

interface Verifier {
  url: string;
  /** The form fields of each request, in order. */
  asked: Array<Record<string, string>>;
  close(): Promise<void>;
}

/** A siteverify endpoint: `good` passes, anything else does not. */
async function startVerifier(): Promise<Verifier> {
  const asked: Array<Record<string, string>> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      asked.push(form);
      const success = form.response === 'good' && form.secret === 'verify-secret';
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify(
          success ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] },
        ),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/siteverify`,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const challengeOf = (verifyUrl: string): ChallengeConfig => ({
  provider: 'turnstile',
  secret: 'verify-secret',
  siteKey: 'site-key-1',
  verifyUrl,
  scriptUrl: 'https://challenges.example/api.js?render=explicit',
});

let verifier: Verifier;
let harness: Harness | undefined;
beforeEach(async () => {
  verifier = await startVerifier();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await verifier.close();
});

async function start(verifyUrl = verifier.url) {
  harness = await startServer({
    replies: answers(4),
    auth: { mode: 'optional', secret: SECRET },
    challenge: challengeOf(verifyUrl),
  });
  return harness;
}

/** A send's outcome: the turn's answer, or the error that refused it. */
async function sendOn(client: TestClient, id: string) {
  const from = client.frames.length;
  client.send({ type: 'send', text: 'hello', clientMessageId: id });
  return client.next((f) => f.type === 'message' || (f.type === 'error' && f.clientMessageId === id), {
    from,
  });
}

/** A hello carrying a challenge token; resolves with what came before its `ready`. */
async function helloWith(client: TestClient, token: string, anonymousKey?: string) {
  const from = client.frames.length;
  client.send({ type: 'hello', protocol: 1, challenge: token, ...(anonymousKey ? { anonymousKey } : {}) });
  await client.next((f) => f.type === 'ready', { from });
  return client.frames.slice(from).filter((f) => f.type === 'error');
}

describe('the bot challenge', () => {
  test('an anonymous send is refused until a token passes; the pass holds for the key', async () => {
    const server = await start();
    const client = await server.connect();
    const { anonymousKey } = await client.hello();
    expect(await sendOn(client, 'a')).toMatchObject({
      type: 'error',
      code: 'challenge_required',
      challenge: {
        provider: 'turnstile',
        siteKey: 'site-key-1',
        scriptUrl: 'https://challenges.example/api.js?render=explicit',
      },
    });
    expect(verifier.asked).toHaveLength(0);

    // A token the provider refuses: challenge_failed, and still no turn.
    expect(await helloWith(client, 'bad', anonymousKey)).toMatchObject([
      { code: 'challenge_failed', challenge: { siteKey: 'site-key-1' } },
    ]);
    expect(await sendOn(client, 'b')).toMatchObject({ code: 'challenge_required' });

    // A token it accepts: the turn runs. The verifier was asked as the providers document.
    expect(await helloWith(client, 'good', anonymousKey)).toEqual([]);
    expect(verifier.asked.at(-1)).toEqual({
      secret: 'verify-secret',
      response: 'good',
      remoteip: '127.0.0.1',
    });
    expect(await sendOn(client, 'c')).toMatchObject({ type: 'message', message: { status: 'complete' } });

    // The same browser (its key) on a new connection is not asked again.
    const again = await server.connect();
    await again.hello(undefined, undefined, anonymousKey);
    expect(await sendOn(again, 'd')).toMatchObject({ type: 'message' });
    expect(verifier.asked).toHaveLength(2);

    // Another browser is.
    const stranger = await server.connect();
    await stranger.hello();
    expect(await sendOn(stranger, 'e')).toMatchObject({ code: 'challenge_required' });
  });

  test('a verifier that cannot be reached fails closed', async () => {
    const url = verifier.url;
    await verifier.close();
    verifier = await startVerifier();
    const server = await start(url);
    const client = await server.connect();
    const { anonymousKey } = await client.hello();
    expect(await helloWith(client, 'good', anonymousKey)).toMatchObject([{ code: 'challenge_failed' }]);
    expect(await sendOn(client, 'a')).toMatchObject({ code: 'challenge_required' });
  });

  test('a signed visitor is never challenged', async () => {
    const server = await start();
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));
    const client = await server.connect();
    await client.hello(undefined, token);
    expect(await sendOn(client, 'a')).toMatchObject({ type: 'message', message: { status: 'complete' } });
    expect(verifier.asked).toHaveLength(0);
  });
});

describe("the built-in page's policy", () => {
  test("allows the provider's script and frame only when a challenge is configured", async () => {
    const policyOf = async (env: Record<string, string>) => {
      const { config, env: resolved } = loadServerConfig({
        env: { AALIS_DATA_DIR: ':memory:', AALIS_PROVIDER: 'demo', ...env },
      });
      const server = await createAalisServer(config, resolved);
      try {
        const page = await server.app.inject({ method: 'GET', url: '/', headers: { host: '127.0.0.1' } });
        expect(page.statusCode).toBe(200);
        return String(page.headers['content-security-policy']);
      } finally {
        await server.close();
      }
    };
    const plain = await policyOf({});
    expect(plain).toContain("script-src 'self';");
    // Frames from the server itself only (its MCP Apps), none from a challenge provider.
    expect(plain).toContain("frame-src 'self';");
    const challenged = await policyOf({
      AALIS_CHALLENGE: 'turnstile',
      AALIS_CHALLENGE_SECRET: 'verify-secret',
      AALIS_CHALLENGE_SITE_KEY: 'site-key-1',
    });
    expect(challenged).toContain("script-src 'self' https://challenges.cloudflare.com;");
    expect(challenged).toContain("frame-src 'self' https://challenges.cloudflare.com;");
    expect(challenged).not.toContain('hcaptcha');
  });
});

describe('configuration mistakes', () => {
  test.each([
    [{ AALIS_CHALLENGE: 'recaptcha' }, /AALIS_CHALLENGE must be one of turnstile, hcaptcha/],
    [{ AALIS_CHALLENGE: 'hcaptcha' }, /needs AALIS_CHALLENGE_SECRET\n.*needs AALIS_CHALLENGE_SITE_KEY/],
    [{ AALIS_CHALLENGE_SITE_KEY: 'k' }, /AALIS_CHALLENGE_SITE_KEY needs AALIS_CHALLENGE/],
    [
      {
        AALIS_CHALLENGE: 'turnstile',
        AALIS_CHALLENGE_SECRET: 's',
        AALIS_CHALLENGE_SITE_KEY: 'k',
        AALIS_CHALLENGE_VERIFY_URL: 'http://verify.example/',
      },
      /AALIS_CHALLENGE_VERIFY_URL must be an https:\/\/ URL/,
    ],
    [{ AALIS_ADMIN_TOKEN: 'short' }, /AALIS_ADMIN_TOKEN must be at least 16 characters/],
    [{ AALIS_IPV6_PREFIX: '129' }, /AALIS_IPV6_PREFIX/],
  ])('%o', (env, mistake) => {
    expect(() => loadServerConfig({ env: { AALIS_DATA_DIR: ':memory:', ...env } })).toThrow(mistake);
  });
});
