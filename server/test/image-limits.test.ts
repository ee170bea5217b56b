/**
 * What keeps uploads from being abused, on real HTTP servers: a file is an image only when
 * its structure is whole (a header alone, a file cut short, image data shorter or longer
 * than its header claims are refused); an address's uploads and bytes per hour are
 * counted in the store every instance shares, by its IPv6 /64, and survive a restart;
 * the bytes of unsent uploads have a cap on the whole server, and unsent uploads are
 * deleted after an hour.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import { Problems } from '../src/config/problems.js';
import { loadImageConfig } from '../src/config/load-values.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import type { HistoryStore } from '../src/history/store.js';
import { UNSENT_IMAGE_MS } from '../src/images/image-settings.js';
import { textAnswer } from './fake-upstream.js';
import { png, pngChunk, pngOf } from './image-bytes.js';
import { startServer, type Harness } from './ws-harness.js';

const servers: Harness[] = [];
const stores: HistoryStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const serve = async (options: Parameters<typeof startServer>[0]) => {
  const server = await startServer(options);
  servers.push(server);
  return server;
};
const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/images/${name}`, import.meta.url));
const httpBase = (harness: Harness) => harness.url.replace(/^ws/, 'http').replace(/\/ws$/, '');

/** A ticket for a new session of `server`. */
async function ticketOf(server: Harness): Promise<{ ticket: string; sessionId: string }> {
  const ready = await (await server.connect()).hello();
  return { ticket: ready.uploads!.ticket, sessionId: ready.sessionId };
}

/** `chunked`: the body as a stream, so that no Content-Length announces its size. */
async function upload(
  server: Harness,
  ticket: string,
  body: Buffer,
  { chunked = false, headers = {} }: { chunked?: boolean; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${httpBase(server)}/images`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${ticket}`, ...headers },
    body: chunked ? new Blob([new Uint8Array(body)]).stream() : new Uint8Array(body),
    duplex: 'half',
  } as RequestInit);
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get('retry-after'),
  };
}

/** Seconds until the clock hour ends, as a Retry-After says them. */
const secondsToHourEnd = () => Math.ceil((3_600_000 - (Date.now() % 3_600_000)) / 1000);

describe('an image is whole or refused', () => {
  test('a 67-byte PNG that claims 8000 × 8000 pixels, or a header alone, is not an image', async () => {
    const server = await serve({ replies: [], images: { vision: true } });
    const { ticket } = await ticketOf(server);
    // Every chunk well formed (CRCs right), but ten bytes of zlib cannot hold 64 megapixels.
    const flood = pngOf(
      { width: 8000, height: 8000 },
      pngChunk('IDAT', deflateSync(Buffer.alloc(2), { level: 9 })),
      pngChunk('IEND'),
    );
    expect(flood.length).toBe(67);
    expect(await upload(server, ticket, flood)).toMatchObject({
      status: 415,
      json: { code: 'not_an_image' },
    });
    const headerOnly = pngOf({ width: 8000, height: 8000 }, pngChunk('IEND'));
    expect((await upload(server, ticket, headerOnly)).status).toBe(415);
    expect((await upload(server, ticket, pngOf({ width: 8000, height: 8000 }))).status).toBe(415);
  });

  test('PNG image data that inflates to fewer or more bytes than its header claims is refused', async () => {
    const server = await serve({ replies: [], images: { vision: true } });
    const { ticket } = await ticketOf(server);
    // 10 × 10 RGB: ten scanlines of a filter byte and 30 bytes.
    const shape = { width: 10, height: 10 };
    expect((await upload(server, ticket, png(shape, 10 * 31))).json).toMatchObject({ width: 10, height: 10 });
    expect((await upload(server, ticket, png(shape, 9 * 31))).json.code).toBe('not_an_image');
    expect((await upload(server, ticket, png(shape, 10 * 31 + 1))).json.code).toBe('not_an_image');
    // A chunk whose CRC does not match its bytes.
    const corrupt = png(shape, 10 * 31);
    const inIdat = corrupt.length - 20;
    corrupt.writeUInt8(corrupt.readUInt8(inIdat) ^ 0xff, inIdat);
    expect((await upload(server, ticket, corrupt)).json.code).toBe('not_an_image');
    // Cut short: the IEND chunk and part of the image data missing.
    expect((await upload(server, ticket, png(shape, 10 * 31).subarray(0, 50))).json.code).toBe(
      'not_an_image',
    );
    // Bytes after IEND.
    const trailed = Buffer.concat([png(shape, 10 * 31), Buffer.from('<script>')]);
    expect((await upload(server, ticket, trailed)).json.code).toBe('not_an_image');
  });

  test('every colour type and bit depth, and Adam7 interlacing, is measured by its own rule', async () => {
    const server = await serve({ replies: [], images: { vision: true } });
    const { ticket } = await ticketOf(server);
    // 1-bit grey: 13 pixels pack into 2 bytes a row.
    expect(
      (await upload(server, ticket, png({ width: 13, height: 3, colourType: 0, bitDepth: 1 }, 3 * 3))).status,
    ).toBe(201);
    expect(
      (await upload(server, ticket, png({ width: 5, height: 4, colourType: 3, bitDepth: 4 }, 4 * 4))).status,
    ).toBe(201);
    expect(
      (await upload(server, ticket, png({ width: 3, height: 2, colourType: 6, bitDepth: 16 }, 2 * 25)))
        .status,
    ).toBe(201);
    // A palette image without its palette.
    const noPalette = pngOf(
      { width: 5, height: 4, colourType: 3, bitDepth: 4 },
      pngChunk('IDAT', deflateSync(Buffer.alloc(16))),
      pngChunk('IEND'),
    );
    expect((await upload(server, ticket, noPalette)).status).toBe(415);
    // 10 × 10 RGB interlaced: the seven passes are 2×2, 1×2, 3×1, 2×3, 5×2, 5×5 and 10×5 pixels.
    const passes = [
      [2, 2],
      [1, 2],
      [3, 1],
      [2, 3],
      [5, 2],
      [5, 5],
      [10, 5],
    ].reduce((sum, [w, h]) => sum + h! * (1 + w! * 3), 0);
    const interlaced = { width: 10, height: 10, interlaced: true };
    expect((await upload(server, ticket, png(interlaced, passes))).json).toMatchObject({
      width: 10,
      height: 10,
    });
    expect((await upload(server, ticket, png(interlaced, 10 * 31))).status).toBe(415);
  });

  test('a JPEG cut short, a GIF without its trailer or with a frame off its screen, a WebP of the wrong length are refused', async () => {
    const server = await serve({ replies: [], images: { vision: true } });
    const { ticket } = await ticketOf(server);
    const jpeg = fixture('photo.jpg');
    expect((await upload(server, ticket, jpeg)).status).toBe(201);
    expect((await upload(server, ticket, jpeg.subarray(0, jpeg.length - 2))).json.code).toBe('not_an_image');
    expect((await upload(server, ticket, jpeg.subarray(0, jpeg.length - 100))).json.code).toBe(
      'not_an_image',
    );
    // Everything up to the scan's header, and no scan data.
    const scanAt = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    expect(
      (await upload(server, ticket, jpeg.subarray(0, scanAt + 2 + jpeg.readUInt16BE(scanAt + 2)))).status,
    ).toBe(415);
    // A phone's trailer after EOI is not read.
    expect((await upload(server, ticket, Buffer.concat([jpeg, Buffer.from('SEFT trailer')]))).status).toBe(
      201,
    );

    const gif = fixture('dot.gif');
    expect((await upload(server, ticket, gif.subarray(0, gif.length - 1))).json.code).toBe('not_an_image');
    // Bytes after the trailer, as old encoders left them, are not read.
    expect((await upload(server, ticket, Buffer.concat([gif, Buffer.from([0x1a, 0x14, 0x00])]))).status).toBe(
      201,
    );
    const offScreen = Buffer.from(gif);
    // The image descriptor's left edge (after the 13-byte screen, its 6-byte table, an 8-byte extension).
    offScreen.writeUInt16LE(1, 28);
    expect((await upload(server, ticket, offScreen)).json.code).toBe('not_an_image');

    const webp = fixture('tiny.webp');
    expect((await upload(server, ticket, webp.subarray(0, webp.length - 10))).json.code).toBe('not_an_image');
    expect((await upload(server, ticket, Buffer.concat([webp, Buffer.alloc(4)]))).json.code).toBe(
      'not_an_image',
    );
  });

  test('more than 8,000 pixels a side, or more than 40 megapixels, is too big', async () => {
    const server = await serve({ replies: [], images: { vision: true } });
    const { ticket } = await ticketOf(server);
    expect(await upload(server, ticket, png({ width: 9000, height: 2 }, 2 * 27_001))).toMatchObject({
      status: 413,
      json: { code: 'too_big', error: 'an image may be at most 8000 pixels wide and high' },
    });
    // 49 megapixels of 1-bit grey: a 6 MB image in a few kilobytes.
    const huge = png({ width: 7000, height: 7000, colourType: 0, bitDepth: 1 }, 7000 * 876);
    expect(await upload(server, ticket, huge)).toMatchObject({
      status: 413,
      json: { code: 'too_big', error: 'an image may have at most 40 megapixels' },
    });
  });
});

describe('per-address budgets', () => {
  test('the bytes per hour refuse the upload that would pass them, with Retry-After, storing nothing', async () => {
    const store = new MemoryHistoryStore();
    const jpeg = fixture('photo.jpg');
    const server = await serve({
      replies: [],
      store,
      images: { vision: true, perIpBytesPerHour: 2 * jpeg.length + 100 },
    });
    const { ticket, sessionId } = await ticketOf(server);
    expect((await upload(server, ticket, jpeg)).status).toBe(201);
    expect((await upload(server, ticket, jpeg)).status).toBe(201);
    const before = secondsToHourEnd();
    // Refused by its Content-Length before its body is read, and by its bytes when none announces them.
    for (const chunked of [false, true]) {
      const refused = await upload(server, ticket, jpeg, { chunked });
      expect(refused).toMatchObject({
        status: 429,
        json: { code: 'too_many', error: 'too many megabytes of images from this address: try again later' },
      });
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(secondsToHourEnd() - 1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(before + 1);
    }
    expect(await store.countImages(sessionId)).toBe(2);
    // What still fits goes: the refused upload took nothing of the budget.
    expect((await upload(server, ticket, fixture('dot.gif'))).status).toBe(201);
  });

  test('the counts live in the SQLite data folder: another instance sees them, and so does a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-upload-counts-'));
    dirs.push(dir);
    const open = () => {
      const store = new SqliteHistoryStore(dir);
      stores.push(store);
      return store;
    };
    const images = { vision: true, perIpPerHour: 3 };
    const first = await serve({ replies: [], store: open(), images });
    const second = await serve({ replies: [], store: open(), images });
    const gif = fixture('dot.gif');
    expect((await upload(first, (await ticketOf(first)).ticket, gif)).status).toBe(201);
    expect((await upload(second, (await ticketOf(second)).ticket, gif)).status).toBe(201);
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await Promise.all(stores.splice(0).map((store) => store.close()));

    const restarted = await serve({ replies: [], store: open(), images });
    const { ticket } = await ticketOf(restarted);
    expect((await upload(restarted, ticket, gif)).status).toBe(201);
    const refused = await upload(restarted, ticket, gif);
    expect(refused).toMatchObject({ status: 429, json: { code: 'too_many' } });
    expect(refused.json.error).toBe('too many images from this address: try again later');
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  });

  test('IPv6 addresses of one /64 share one count; the next /64 has its own', async () => {
    const server = await serve({
      replies: [],
      ipLimits: { trustProxy: ['loopback'] },
      images: { vision: true, perIpPerHour: 2 },
    });
    const { ticket } = await ticketOf(server);
    const gif = fixture('dot.gif');
    const from = (address: string) =>
      upload(server, ticket, gif, { headers: { 'x-forwarded-for': address } });
    expect((await from('2001:db8::1')).status).toBe(201);
    expect((await from('2001:db8::2')).status).toBe(201);
    expect((await from('2001:db8::ffff:1')).status).toBe(429);
    expect((await from('2001:db8:0:1::1')).status).toBe(201);
    // The loopback peer itself, without a forwarded address, is another address again.
    expect((await upload(server, ticket, gif)).status).toBe(201);
  });
});

describe('unsent uploads', () => {
  test('their bytes have a cap on the whole server: 507 storage_full, until a question names them', async () => {
    const store = new MemoryHistoryStore();
    const jpeg = fixture('photo.jpg');
    const server = await serve({
      replies: [{ body: textAnswer('Two photos.') }],
      store,
      images: { vision: true, maxUnsentBytes: 2 * jpeg.length },
    });
    const client = await server.connect();
    const ready = await client.hello();
    const ticket = ready.uploads!.ticket;
    const ids = [(await upload(server, ticket, jpeg)).json.id, (await upload(server, ticket, jpeg)).json.id];
    const other = await ticketOf(server);
    const refused = await upload(server, other.ticket, fixture('dot.gif'));
    expect(refused).toMatchObject({
      status: 507,
      json: {
        code: 'storage_full',
        error: 'this server holds as many images not yet sent as it can: try again later',
      },
      retryAfter: '600',
    });
    expect(await store.countImages(other.sessionId)).toBe(0);

    client.send({ type: 'send', text: 'Look', images: ids, clientMessageId: 'c1' });
    await client.turnEnd();
    expect(await store.unsentImageBytes()).toBe(0);
    expect((await upload(server, other.ticket, fixture('dot.gif'))).status).toBe(201);
  });

  test('those older than an hour are deleted when a server starts (and every 10 minutes after)', async () => {
    const store = new MemoryHistoryStore();
    const gif = fixture('dot.gif');
    const image = (id: string, sessionId: string, createdAt: number) => ({
      id,
      sessionId,
      mimeType: 'image/gif' as const,
      width: 1,
      height: 1,
      bytes: gif.length,
      data: gif,
      createdAt,
    });
    const longAgo = Date.now() - UNSENT_IMAGE_MS - 1_000;
    await store.putImage(image('img_stale', 's1', longAgo));
    await store.putImage(image('img_sent', 's1', longAgo));
    await store.putImage(image('img_fresh', 's1', Date.now()));
    const { id, mimeType, width, height, bytes } = image('img_sent', 's1', longAgo);
    await store.beginTurn(
      's1',
      {
        id: 'u1',
        role: 'user',
        parts: [],
        createdAt: longAgo,
        images: [{ id, mimeType, width, height, bytes }],
      },
      longAgo,
    );
    await serve({ replies: [], store, images: { vision: true } });
    expect(await store.getImage('img_stale')).toBeUndefined();
    expect(await store.getImage('img_sent')).toBeDefined();
    expect(await store.getImage('img_fresh')).toBeDefined();
  });
});

test('the bytes per address may be 0 (no limit); the unsent cap may not', () => {
  const problems = new Problems();
  const config = loadImageConfig(
    { AALIS_IMAGE_BYTES_PER_IP_PER_HOUR: '0', AALIS_IMAGE_MAX_UNSENT_BYTES: '0' },
    {},
    problems,
  );
  expect(config.perIpBytesPerHour).toBe(0);
  expect(problems.lines).toEqual([
    expect.stringMatching(/^AALIS_IMAGE_MAX_UNSENT_BYTES must be a whole number from 1 to /),
  ]);
  expect(loadImageConfig({}, { perIpBytesPerHour: 1_000 }, new Problems())).toMatchObject({
    perIpBytesPerHour: 1_000,
    maxUnsentBytes: 512 * 1024 * 1024,
  });
});
