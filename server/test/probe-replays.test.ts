/**
 * The attacker's probe findings replayed on real sockets, each failing before its fix:
 * a signed visitor's socket outliving its token, plain `GET /ws` requests on a keep-alive
 * connection holding an address's socket places, and bad tokens from a shared address
 * locking out that address's valid visitors.
 */
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { createVisitorAuth } from '../src/identity/visitor-auth.js';
import { completionChunk, sse, textAnswer, usageChunk } from './fake-upstream.js';
import { startServer, TestClient, type Harness } from './ws-harness.js';

const SECRET = 'a-secret-of-at-least-32-bytes-for-tests!';
const sign = (sub: string, exp: number | string, secret = SECRET) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a signed visitor whose token expires', () => {
  test('its socket closes 4401 when the token stops being accepted; its turn runs on and resumes', async () => {
    // The verifier's clock stands 29.5 s ahead: with the 30 s tolerance, a token whose exp
    // is the next whole second stops being accepted within 1.5 s of real time.
    const ahead = 29.5;
    const slow = sse([
      completionChunk({ role: 'assistant', content: '' }),
      ...Array.from({ length: 40 }, (_, i) => completionChunk({ content: `w${i} ` })),
      completionChunk({}, 'stop'),
      usageChunk(1, 40),
    ]);
    harness = await startServer({
      replies: [{ body: slow, byEvent: true, delayMs: 75 }],
      auth: { mode: 'required', secret: SECRET },
      connection: {
        auth: createVisitorAuth(
          { mode: 'required', secret: SECRET },
          { now: () => Date.now() / 1000 + ahead },
        ),
      },
    });
    const expiring = await sign('alice', Math.ceil(Date.now() / 1000));
    const client = await harness.connect();
    const ready = await client.hello(undefined, expiring);
    client.send({ type: 'send', text: 'talk slowly' });
    await client.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
    const closed = await client.closed;
    expect(closed).toEqual({ code: 4401, reason: 'the visitor token expired: reconnect with a fresh one' });

    // The client comes back with a fresh token: the turn it left is resumed, then ends.
    const fresh = await sign('alice', '10m');
    const back = await harness.connect();
    await back.hello(ready.sessionId, fresh);
    expect(await back.next((f) => f.type === 'stream_resume' || f.type === 'message')).toBeTruthy();
    expect(await back.turnEnd()).toMatchObject({ message: { status: 'complete' } });
  });
});

describe('plain GET /ws on a keep-alive connection', () => {
  test('takes no socket place: the address still opens its real WebSockets', async () => {
    harness = await startServer({ ipLimits: { maxConnections: 2, connectionsPerMinute: 0 } });
    const http = harness.url.replace(/^ws/, 'http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 20; i++) {
        const response = await new Promise<{ status: number }>((resolve, reject) => {
          const asked = request(http, { agent }, (answer) => {
            answer.resume();
            answer.on('end', () => resolve({ status: answer.statusCode ?? 0 }));
          });
          asked.on('error', reject);
          asked.end();
        });
        expect(response.status).toBeGreaterThanOrEqual(400);
      }
      // The keep-alive connection is still open: before the fix it held 20 places.
      const opened: WebSocket[] = [];
      for (let i = 0; i < 2; i++) {
        const socket = new WebSocket(harness.url);
        opened.push(socket);
        const [outcome] = await Promise.race([once(socket, 'open'), once(socket, 'unexpected-response')]);
        expect(outcome === undefined || socket.readyState === WebSocket.OPEN).toBe(true);
      }
      // The third is over the limit of two real sockets.
      const third = new WebSocket(harness.url);
      const [, response] = (await once(third, 'unexpected-response')) as [unknown, { statusCode: number }];
      expect(response.statusCode).toBe(429);
      for (const socket of opened) socket.terminate();
    } finally {
      agent.destroy();
    }
  });
});

describe('bad tokens from a shared address', () => {
  test("lock out only the subject they guess at, not the address's valid visitors", async () => {
    harness = await startServer({
      replies: [{ body: textAnswer('Hi Alice.') }],
      auth: { mode: 'required', secret: SECRET },
    });
    const forged = await sign('mallory', '10m', 'not-the-secret-but-just-as-long-as-it!!');
    for (let i = 0; i < 11; i++) {
      const client = await harness.connect();
      client.send({ type: 'hello', protocol: 1, token: forged });
      expect((await client.closed).code).toBe(4401);
    }
    // Alice, on the same address, gets in and chats.
    const alice = await harness.connect();
    await alice.hello(undefined, await sign('alice', '10m'));
    alice.send({ type: 'send', text: 'hello' });
    expect(await alice.turnEnd()).toMatchObject({ message: { status: 'complete' } });
    // The guessed-at subject is held for the minute, even with a valid token.
    const held = TestClient.wrap(new WebSocket(harness.url));
    await once(held.socket, 'open');
    held.send({ type: 'hello', protocol: 1, token: await sign('mallory', '10m') });
    expect((await held.closed).code).toBe(4401);
  });
});
