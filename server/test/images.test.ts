/**
 * Images on real sockets and real HTTP: uploaded with the session's ticket, checked by
 * their bytes, stored with the history, named in `send`, and sent to a fake Chat
 * Completions upstream as `image_url` parts, byte for byte.
 */
import { readFileSync } from 'node:fs';
import type { ImageRef, Uploads } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { createUploadTickets } from '../src/images/upload-ticket.js';
import { textAnswer } from './fake-upstream.js';
import { png } from './image-bytes.js';
import { startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const image = (name: string): Buffer => readFileSync(new URL(`./fixtures/images/${name}`, import.meta.url));
const httpBase = (harness: Harness) => harness.url.replace(/^ws/, 'http').replace(/\/ws$/, '');

async function upload(
  harness: Harness,
  body: Buffer,
  { ticket, type = 'image/png', origin }: { ticket?: string; type?: string; origin?: string },
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${httpBase(harness)}/images`, {
    method: 'POST',
    headers: {
      'content-type': type,
      ...(ticket ? { authorization: `Bearer ${ticket}` } : {}),
      ...(origin ? { origin } : {}),
    },
    body: new Uint8Array(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** A question's parts as the fake upstream received them. */
const lastUserContent = (body: unknown) =>
  (body as { messages: Array<{ role: string; content: unknown }> }).messages
    .filter((m) => m.role === 'user')
    .at(-1)!.content;

describe('uploads', () => {
  test('ready offers them; each accepted type is stored and served back byte for byte', async () => {
    server = await startServer({ replies: [], images: { vision: true } });
    const client = await server.connect();
    const ready = await client.hello();
    const uploads = ready.uploads!;
    expect(uploads).toMatchObject({
      maxBytes: 3_932_160,
      maxCount: 4,
      types: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
    });
    expect(uploads.expiresAt).toBeGreaterThan(Date.now());
    for (const [file, mimeType, width, height] of [
      ['chart.png', 'image/png', 40, 30],
      ['photo.jpg', 'image/jpeg', 64, 48],
      ['tiny.webp', 'image/webp', 24, 12],
      ['dot.gif', 'image/gif', 1, 1],
    ] as const) {
      const bytes = image(file);
      // The declared type is not believed: the bytes say what it is.
      const { status, json } = await upload(server, bytes, {
        ticket: uploads.ticket,
        type: 'application/octet-stream',
      });
      expect(status).toBe(201);
      expect(json).toEqual({
        id: expect.stringMatching(/^img_/),
        mimeType,
        width,
        height,
        bytes: bytes.length,
      });
      const served = await fetch(`${httpBase(server)}/images/${json.id as string}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(mimeType);
      expect(served.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.compare(Buffer.from(await served.arrayBuffer()), bytes)).toBe(0);
    }
    expect((await fetch(`${httpBase(server)}/images/img_AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
  });

  test('bad files, missing or forged tickets, other origins and too many are refused with a clear reason', async () => {
    server = await startServer({
      replies: [],
      allowedOrigins: ['https://shop.example'],
      images: { vision: true, maxBytes: 1_200, maxPerSession: 2 },
    });
    const client = await server.connect();
    const { uploads } = await client.hello();
    const ticket = uploads!.ticket;
    const notAnImage = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(await upload(server, notAnImage, { ticket, type: 'image/png' })).toMatchObject({
      status: 415,
      json: { code: 'not_an_image', error: 'this file is not a PNG, JPEG, WebP or GIF image' },
    });
    // A PNG signature with nothing readable after it.
    const truncated = image('chart.png').subarray(0, 16);
    expect((await upload(server, truncated, { ticket })).json.code).toBe('not_an_image');
    expect(await upload(server, image('chart.png'), { ticket })).toMatchObject({
      status: 413,
      json: { code: 'too_big', error: 'an image may be at most 0 MB' },
    });
    // A whole PNG 9,000 pixels wide (one black grey row): more than any provider here takes.
    const wide = png({ width: 9_000, height: 1, colourType: 0 }, 9_001);
    expect(await upload(server, wide, { ticket })).toMatchObject({
      status: 413,
      json: { code: 'too_big', error: 'an image may be at most 8000 pixels wide and high' },
    });
    expect(await upload(server, image('dot.gif'), {})).toMatchObject({
      status: 401,
      json: { code: 'bad_ticket' },
    });
    const forged = ticket.replace(/^[^.]+/, 'someone-elses-session');
    expect((await upload(server, image('dot.gif'), { ticket: forged })).json.code).toBe('bad_ticket');
    expect(await upload(server, image('dot.gif'), { ticket, origin: 'https://evil.example' })).toMatchObject({
      status: 403,
      json: { code: 'origin' },
    });
    const allowed = await upload(server, image('dot.gif'), { ticket, origin: 'https://shop.example' });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect((await upload(server, image('tiny.webp'), { ticket })).status).toBe(201);
    expect(await upload(server, image('dot.gif'), { ticket })).toMatchObject({
      status: 429,
      json: { code: 'too_many', error: 'a conversation may have at most 2 images' },
    });
    // The preflight a page on an allowed origin makes before its upload.
    const preflight = await fetch(`${httpBase(server)}/images`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  test('a ticket is for its session until it expires, and only this server key makes one', () => {
    const tickets = createUploadTickets({}, 1_000);
    const { ticket, expiresAt } = tickets.issue('session-1', 5_000);
    expect(expiresAt).toBe(6_000);
    expect(tickets.check(ticket, 5_999)).toEqual({ ok: true, sessionId: 'session-1' });
    expect(tickets.check(ticket, 6_000)).toEqual({ ok: false, code: 'ticket_expired' });
    expect(createUploadTickets({}, 1_000).check(ticket, 5_500)).toEqual({ ok: false, code: 'bad_ticket' });
    const later = ticket.replace(/\.[0-9a-z]+\./, `.${(10_000_000).toString(36)}.`);
    expect(tickets.check(later, 5_500)).toEqual({ ok: false, code: 'bad_ticket' });
    expect(tickets.check('nothing', 5_500)).toEqual({ ok: false, code: 'bad_ticket' });
  });
});

describe('questions with images', () => {
  test('reach the model as image_url parts, are kept with the history, and go again with a regenerate', async () => {
    const store = new MemoryHistoryStore();
    server = await startServer({
      replies: [{ body: textAnswer('A chart.') }, { body: textAnswer('Still a chart.') }],
      store,
      images: { vision: true },
    });
    const client = await server.connect();
    const ready = await client.hello();
    const ticket = (ready.uploads as Uploads).ticket;
    const png = image('chart.png');
    const jpg = image('photo.jpg');
    const first = (await upload(server, png, { ticket })).json as unknown as ImageRef;
    const second = (await upload(server, jpg, { ticket, type: 'image/jpeg' })).json as unknown as ImageRef;

    client.send({
      type: 'send',
      text: 'What is this?',
      images: [first.id, second.id],
      clientMessageId: 'c1',
    });
    const echoed = await client.next((f) => f.type === 'user_message');
    expect(echoed).toMatchObject({ clientMessageId: 'c1', message: { images: [first, second] } });
    await client.turnEnd();
    expect(lastUserContent(server.upstream!.requests[0]!.body)).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpg.toString('base64')}` } },
    ]);

    // A new tab sees the question with its images.
    const other = await server.connect();
    const again = await other.hello(ready.sessionId);
    expect(again.messages[0]).toMatchObject({ role: 'user', images: [first, second] });

    // A regenerate asks with the same images.
    const from = client.frames.length;
    client.send({ type: 'regenerate', messageId: client.view.messages.at(-1)!.id });
    await client.turnEnd(from);
    expect(lastUserContent(server.upstream!.requests[1]!.body)).toEqual(
      lastUserContent(server.upstream!.requests[0]!.body),
    );
  });

  test("a send with another session's image, too many, or none while images are off is refused, nothing lost", async () => {
    server = await startServer({
      replies: [{ body: textAnswer('ok') }],
      images: { vision: true, maxCount: 1 },
    });
    const [mine, theirs] = [await server.connect(), await server.connect()];
    const myReady = await mine.hello();
    const theirReady = await theirs.hello();
    const their = (await upload(server, image('dot.gif'), { ticket: theirReady.uploads!.ticket })).json;
    const own = (await upload(server, image('dot.gif'), { ticket: myReady.uploads!.ticket })).json;
    const own2 = (await upload(server, image('tiny.webp'), { ticket: myReady.uploads!.ticket })).json;

    mine.send({ type: 'send', text: 'look', images: [their.id], clientMessageId: 'x1' });
    expect(await mine.next((f) => f.type === 'error')).toMatchObject({
      code: 'images_unsupported',
      message: 'an image was not found: attach it again',
      clientMessageId: 'x1',
    });
    let from = mine.frames.length;
    mine.send({ type: 'send', text: 'look', images: [own.id, own2.id], clientMessageId: 'x2' });
    expect(await mine.next((f) => f.type === 'error', { from })).toMatchObject({
      code: 'images_unsupported',
      message: 'at most 1 images can be sent with one message',
      clientMessageId: 'x2',
    });
    from = mine.frames.length;
    mine.send({ type: 'send', text: '   ', clientMessageId: 'x3' });
    expect(await mine.next((f) => f.type === 'error', { from })).toMatchObject({
      code: 'bad_frame',
      clientMessageId: 'x3',
    });
    expect(mine.of('user_message')).toEqual([]);
    expect(server.upstream!.requests).toEqual([]);

    // An image alone is a question.
    from = mine.frames.length;
    mine.send({ type: 'send', text: '', images: [own.id] });
    await mine.turnEnd(from);
    expect(lastUserContent(server.upstream!.requests[0]!.body)).toEqual([
      {
        type: 'image_url',
        image_url: { url: `data:image/gif;base64,${image('dot.gif').toString('base64')}` },
      },
    ]);
  });

  test('a model that does not read images: no uploads offered, no route, and a clear refusal', async () => {
    server = await startServer({ replies: [], images: { vision: false } });
    const client = await server.connect();
    const ready = await client.hello();
    expect(ready.uploads).toBeUndefined();
    expect((await upload(server, image('dot.gif'), { ticket: 'x.y.z' })).status).toBe(404);
    client.send({
      type: 'send',
      text: 'look',
      images: ['img_AAAAAAAAAAAAAAAAAAAAAA'],
      clientMessageId: 'n1',
    });
    expect(await client.next((f) => f.type === 'error')).toMatchObject({
      code: 'images_unsupported',
      message: 'this model cannot read images: send the message without them',
      clientMessageId: 'n1',
    });
  });
});
