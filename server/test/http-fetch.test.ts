/**
 * The `fetch` the SDKs are given (http-fetch.ts), against a real HTTP server on loopback:
 * what a model API's answers need of it (a body read as it arrives, errors with their
 * status and headers, compression, redirects, aborts, kept-alive sockets), and the SDK
 * reading a real stream through it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { httpFetch } from '../src/providers/core/http-fetch.js';
import { fixture } from './fake-upstream.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose every request is recorded and answered by `answer`. */
async function serve(answer: (seen: Seen, response: ServerResponse) => unknown) {
  const seen: Seen[] = [];
  server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const entry = {
      method: request.method!,
      url: request.url!,
      headers: request.headers,
      body,
      socket: request.socket,
    };
    seen.push(entry);
    answer(entry, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen };
}

/** The body's chunks, as the SDK reads them: by async iteration. */
async function chunksOf(response: Response): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Buffer>) chunks.push(chunk.toString());
  return chunks;
}

describe('httpFetch', () => {
  test('sends the method, headers and body, and gives the status, headers and JSON', async () => {
    const { base, seen } = await serve((_, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      response.end('{"ok":true}');
    });
    const response = await httpFetch(`${base}/v1/things?a=1`, {
      method: 'post',
      headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
      body: '{"q":"é"}',
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(response.url).toBe(`${base}/v1/things?a=1`);
    expect(await response.json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/things?a=1',
      body: '{"q":"é"}',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    });
  });

  test('gives the body as it arrives, not when it ends', async () => {
    let finish!: () => void;
    const { base } = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      finish = () => response.end('data: 2\n\n');
    });
    const response = await httpFetch(base, { method: 'POST', body: '{}' });
    const reading = (response.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect(String((await reading.next()).value)).toBe('data: 1\n\n');
    finish();
    expect(String((await reading.next()).value)).toBe('data: 2\n\n');
    expect((await reading.next()).done).toBe(true);
  });

  test('an error answer keeps its status, its headers and its text', async () => {
    const { base } = await serve((_, response) => {
      response.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
      response.end('{"error":{"message":"slow down"}}');
    });
    const response = await httpFetch(base, { method: 'POST', body: '{}' });
    expect(response.ok).toBe(false);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.text()).toBe('{"error":{"message":"slow down"}}');
    await expect(response.text()).rejects.toThrow(/already been read/);
  });

  test.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ] as const)('a %s answer is decoded', async (encoding, compress) => {
    const { base } = await serve((_, response) => {
      response.writeHead(200, { 'content-encoding': encoding });
      response.end(compress(Buffer.from('data: {"x":"ü"}\n\n'.repeat(50))));
    });
    const response = await httpFetch(base);
    expect((await chunksOf(response)).join('')).toBe('data: {"x":"ü"}\n\n'.repeat(50));
  });

  test('two requests in turn share one kept-alive connection', async () => {
    const { base, seen } = await serve((_, response) => response.end('ok'));
    expect(await (await httpFetch(base)).text()).toBe('ok');
    expect(await (await httpFetch(base)).text()).toBe('ok');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
  });

  test('a 307 redirect repeats the POST with its body; a 303 becomes a GET without it', async () => {
    const { base, seen } = await serve(({ url }, response) => {
      if (url === '/keep') response.writeHead(307, { location: '/kept' }).end();
      else if (url === '/other') response.writeHead(303, { location: '/got' }).end();
      else response.end(url);
    });
    const kept = await httpFetch(`${base}/keep`, { method: 'POST', body: 'payload' });
    expect(await kept.text()).toBe('/kept');
    expect(kept.redirected).toBe(true);
    expect(seen[1]).toMatchObject({ method: 'POST', body: 'payload' });
    const got = await httpFetch(`${base}/other`, {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    expect(await got.text()).toBe('/got');
    expect(seen[3]).toMatchObject({ method: 'GET', body: '' });
    expect(seen[3]!.headers['content-type']).toBeUndefined();
  });

  test('a redirect to another origin does not carry the credentials', async () => {
    const { base: other, seen: otherSeen } = await serve((_, response) => response.end('there'));
    const first = server!;
    server = undefined;
    const { base } = await serve((_, response) => response.writeHead(308, { location: `${other}/x` }).end());
    try {
      const response = await httpFetch(base, {
        method: 'POST',
        body: 'b',
        headers: { authorization: 'Bearer secret' },
      });
      expect(await response.text()).toBe('there');
      expect(otherSeen[0]!.headers.authorization).toBeUndefined();
      expect(otherSeen[0]!.body).toBe('b');
    } finally {
      first.closeAllConnections();
      first.close();
    }
  });

  test('an abort before the answer rejects with an AbortError', async () => {
    const { base } = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = httpFetch(base, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  test.each([
    ['plain', {}, 'first'],
    // A whole gzip member first, so that the reader gets bytes; the answer stays open.
    ['gzip', { 'content-encoding': 'gzip' }, gzipSync('first')],
  ] as const)(
    'an abort while a %s body is read ends the reading and the connection',
    async (_, headers, sent) => {
      const { base, seen } = await serve((_, response) => {
        response.writeHead(200, headers);
        response.write(sent);
      });
      const controller = new AbortController();
      const response = await httpFetch(base, { signal: controller.signal });
      const reading = (response.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      expect(String((await reading.next()).value)).toBe('first');
      const closed = once(seen[0]!.socket, 'close');
      controller.abort();
      await expect(reading.next()).rejects.toMatchObject({ name: 'AbortError' });
      await closed;
    },
  );

  test('a body given up unread (the SDKs cancel one so) closes its connection', async () => {
    const { base, seen } = await serve((_, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.write('{"error":');
    });
    const response = await httpFetch(base, { method: 'POST', body: '{}' });
    const closed = once(seen[0]!.socket, 'close');
    // What the SDKs' CancelReadableStream does with an async-iterable body.
    await (response.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]().return?.();
    await closed;
  });

  test('a 204 has an empty body and leaves its connection for the next request', async () => {
    const { base, seen } = await serve(({ url }, response) => {
      if (url === '/none') response.writeHead(204).end();
      else response.end('next');
    });
    const empty = await httpFetch(`${base}/none`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    expect(await (await httpFetch(`${base}/then`)).text()).toBe('next');
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
  });

  test('a form body is sent as a form', async () => {
    const { base, seen } = await serve((_, response) => response.end());
    await (await httpFetch(base, { method: 'POST', body: new URLSearchParams({ a: '1', b: 'é' }) })).text();
    expect(seen[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(seen[0]!.body).toBe('a=1&b=%C3%A9');
  });

  test("redirect: 'error' refuses a redirect", async () => {
    const { base } = await serve((_, response) => response.writeHead(302, { location: '/x' }).end());
    await expect(httpFetch(base, { redirect: 'error' })).rejects.toBeInstanceOf(TypeError);
  });

  test('a server that is not there is a TypeError naming why, as fetch gives', async () => {
    const { base } = await serve(() => undefined);
    server!.close();
    server!.closeAllConnections();
    await once(server!, 'close');
    server = undefined;
    const error = await httpFetch(base).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  test('a body it does not send itself goes through the global fetch', async () => {
    const { base, seen } = await serve((_, response) => response.end('streamed'));
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('from a stream'));
        controller.close();
      },
    });
    const response = await httpFetch(base, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await response.text()).toBe('streamed');
    expect(seen[0]!.body).toBe('from a stream');
  });

  test('the openai SDK streams a real Chat Completions answer through it, written in pieces', async () => {
    const sse = fixture('openai-text-then-tool-call.sse').toString();
    const { base } = await serve(async (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // In three pieces that cut lines, as a network does.
      const third = Math.ceil(sse.length / 3);
      for (let at = 0; at < sse.length; at += third) {
        response.write(sse.slice(at, at + third));
        await new Promise((r) => setTimeout(r, 5));
      }
      response.end();
    });
    // What the fixture says, read straight from its lines.
    const deltas = sse
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta ?? {});
    const expectedText = deltas.map((d) => d.content ?? '').join('');
    const expectedArgs = deltas.map((d) => d.tool_calls?.[0]?.function?.arguments ?? '').join('');

    const client = new OpenAI({ apiKey: 'k', baseURL: `${base}/v1`, fetch: httpFetch, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    let text = '';
    let args = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    }
    expect(expectedText.length).toBeGreaterThan(0);
    expect(text).toBe(expectedText);
    expect(args).toBe(expectedArgs);
  });
});
