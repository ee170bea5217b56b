/**
 * Every way a client can be refused, and after each one the same server still serves
 * a normal turn: nothing a client sends can break it for others.
 */
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { textAnswer } from './fake-upstream.js';
import { TestClient, startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answer = { body: textAnswer('Still here.') };
const answers = (n: number) => Array.from({ length: n }, () => answer);

/** The server still runs a full turn for a well-behaved client. */
async function stillServes(harness: Harness, token?: string): Promise<void> {
  const client = await harness.connect();
  await client.hello(undefined, token);
  client.send({ type: 'send', text: 'are you there?' });
  const end = await client.turnEnd();
  expect(end.message).toMatchObject({ status: 'complete', parts: [{ type: 'text', text: 'Still here.' }] });
  client.socket.close();
}

describe('before the upgrade', () => {
  test('an Origin not on the list gets 403; same-origin, listed and no Origin pass', async () => {
    server = await startServer({ replies: answers(1), allowedOrigins: ['https://shop.example.com'] });
    await expect(TestClient.open(server.url, 'https://evil.example.com')).rejects.toThrow('HTTP 403');
    const port = new URL(server.url).port;
    for (const origin of [`http://127.0.0.1:${port}`, 'https://shop.example.com', undefined]) {
      const client = await TestClient.open(server.url, origin);
      client.socket.close();
    }
    await stillServes(server);
  });

  test('a subdomain wildcard allows every subdomain, with its scheme and port, and nothing else', async () => {
    server = await startServer({ allowedOrigins: ['https://*.example.com'] });
    for (const origin of ['https://shop.example.com', 'https://eu.shop.example.com'])
      (await TestClient.open(server.url, origin)).socket.close();
    for (const origin of [
      'https://example.com',
      'http://shop.example.com',
      'https://shop.example.com:8443',
      'https://shopexample.com',
      'https://example.com.evil.net',
    ])
      await expect(TestClient.open(server.url, origin)).rejects.toThrow('HTTP 403');
  });

  test('"*" allows any origin', async () => {
    server = await startServer({ allowedOrigins: ['*'] });
    (await TestClient.open(server.url, 'https://anywhere.example')).socket.close();
  });
});

describe('the first frame', () => {
  test('no hello in time closes 4408', async () => {
    server = await startServer({ replies: answers(1), connection: { helloTimeoutMs: 100 } });
    const client = await server.connect();
    expect(await client.closed).toMatchObject({ code: 4408 });
    await stillServes(server);
  });

  test.each([
    ['another type first', { type: 'send', text: 'hi' }, /first frame must be hello/],
    ['bad JSON first', '{"type":', /expected hello: a frame must be JSON text/],
    ['a wrong protocol version', { type: 'hello', protocol: 2 }, /hello.protocol: expected 1/],
  ])('%s closes 4400 with the reason', async (_, frame, reason) => {
    server = await startServer({ replies: answers(1) });
    const client = await server.connect();
    client.send(frame);
    const closed = await client.closed;
    expect(closed.code).toBe(4400);
    expect(closed.reason).toMatch(reason);
    await stillServes(server);
  });

  test('a wrong or missing token closes 4401; the right one is served', async () => {
    server = await startServer({ replies: answers(1), token: 's3cret' });
    for (const token of ['wrong', undefined]) {
      const client = await server.connect();
      client.send({ type: 'hello', protocol: 1, ...(token ? { token } : {}) });
      expect((await client.closed).code).toBe(4401);
    }
    await stillServes(server, 's3cret');
  });
});

describe('after hello', () => {
  test('binary frames close 1003', async () => {
    server = await startServer({ replies: answers(1) });
    const client = await server.connect();
    await client.hello();
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await client.closed).code).toBe(1003);
    await stillServes(server);
  });

  test('a frame over the limit closes 1009', async () => {
    server = await startServer({ replies: answers(1), maxFrameBytes: 1024 });
    const client = await server.connect();
    await client.hello();
    client.send({ type: 'send', text: 'x'.repeat(2_000) });
    expect((await client.closed).code).toBe(1009);
    await stillServes(server);
  });

  test('malformed and unknown frames get an error frame, and the connection stays usable', async () => {
    server = await startServer({ replies: answers(1) });
    const client = await server.connect();
    await client.hello();
    client.send('not json');
    client.send({ type: 'send', text: 42 });
    client.send({ type: 'teleport' });
    client.send([1, 2]);
    await client.next(() => client.of('error').length === 4);
    expect(client.of('error').map((e) => [e.code, e.message])).toEqual([
      ['bad_frame', 'a frame must be JSON text'],
      ['bad_frame', 'send.text: expected string, received number'],
      ['unknown_type', 'unknown frame type "teleport"'],
      ['bad_frame', 'a frame must be a JSON object, received an array'],
    ]);
    client.send({ type: 'send', text: 'now properly' });
    expect((await client.turnEnd()).message.status).toBe('complete');
  });

  test('too many sends: rate_limited with when to retry; the connection stays', async () => {
    server = await startServer({
      replies: answers(3),
      connection: { sendRate: { max: 2, windowMs: 60_000 } },
    });
    const client = await server.connect();
    await client.hello();
    for (let i = 0; i < 2; i++) {
      const from = client.frames.length;
      client.send({ type: 'send', text: `m${i}` });
      await client.turnEnd(from);
    }
    client.send({ type: 'send', text: 'one more' });
    const limited = await client.next((f) => f.type === 'error');
    expect(limited).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/try again in \d+ s/),
    });
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    await stillServes(server);
  });

  test('a flood of frames closes 1008', async () => {
    server = await startServer({
      replies: answers(1),
      connection: { frameRate: { max: 50, windowMs: 10_000 } },
    });
    const client = await server.connect();
    await client.hello();
    for (let i = 0; i < 60; i++) client.send({ type: 'abort' });
    expect(await client.closed).toMatchObject({ code: 1008, reason: 'too many frames' });
    await stillServes(server);
  });

  test('a second hello rebinds the connection to another session', async () => {
    server = await startServer({ replies: answers(1) });
    const client = await server.connect();
    const first = await client.hello();
    const from = client.frames.length;
    client.send({ type: 'hello', protocol: 1 });
    const second = await client.next((f) => f.type === 'ready', { from });
    expect(second.type === 'ready' && second.sessionId).not.toBe(first.sessionId);
  });
});

describe('liveness', () => {
  test('a socket that stops answering pings is terminated', async () => {
    server = await startServer({ heartbeatMs: 50 });
    const client = await server.connect();
    await client.hello();
    // ws answers pings automatically; stop it by taking the socket's data away.
    client.socket.pong = () => {};
    (
      client.socket as unknown as { _receiver: { removeAllListeners(e: string): void } }
    )._receiver.removeAllListeners('ping');
    expect((await client.closed).code).toBe(1006);
  });
});
