/**
 * /aalis-chat.js as a page on another site loads it: the real built file, compressed
 * (brotli, else gzip), revalidated by an ETag per encoding, cached in a way that suits a
 * script address that is not versioned.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, expect, test } from 'vitest';
import { WIDGET_PARTS, chooseEncoding, defaultWidgetFile } from '../src/transport/widget-file.js';
import { httpRequest, startLoggedServer, type LoggedServer } from './http-harness.js';

let server: LoggedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const built = defaultWidgetFile();

test.skipIf(!built)(
  'the built widget is served compressed: brotli, gzip or plain as asked, each revalidated',
  async () => {
    const file = readFileSync(built!);
    server = await startLoggedServer();
    const get = (headers: Record<string, string>) =>
      httpRequest(server!.port, '/aalis-chat.js', {
        headers: { host: `127.0.0.1:${server!.port}`, ...headers },
      });

    const br = await get({ 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.bytes).equals(file)).toBe(true);
    const gzip = await get({ 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.bytes).equals(file)).toBe(true);
    const plain = await get({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.equals(file)).toBe(true);
    console.log(
      `/aalis-chat.js on the wire: ${file.length} B plain, ${gzip.bytes.length} B gzip, ${br.bytes.length} B brotli`,
    );
    expect(br.bytes.length).toBeLessThan(file.length / 3);

    for (const answer of [br, gzip, plain]) {
      expect(answer.headers.vary).toBe('accept-encoding');
      expect(answer.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
    }
    // One ETag per encoding: a cache never answers a gzip request with brotli bytes.
    expect(new Set([br, gzip, plain].map((a) => a.headers.etag)).size).toBe(3);
    const again = await get({ 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string });
    expect([again.status, again.bytes.length]).toEqual([304, 0]);
    const otherEncoding = await get({
      'accept-encoding': 'gzip',
      'if-none-match': br.headers.etag as string,
    });
    expect(otherEncoding.status).toBe(200);
  },
);

test.skipIf(!built)(
  'every file the widget imports from next to itself is served too, compressed, with CORS',
  async () => {
    const entry = readFileSync(built!, 'utf8');
    // What the built script asks for at run time: `import("./aalis-chat-marked.js")`, and
    // the challenge's part.
    const parts = [...entry.matchAll(/import\(\s*[`'"]\.\/([^`'"]+)[`'"]\s*\)/g)].map((m) => m[1]!);
    expect(parts).toEqual([...WIDGET_PARTS]);
    server = await startLoggedServer();
    for (const name of parts) {
      const file = readFileSync(join(dirname(built!), name));
      const answer = await httpRequest(server.port, `/${name}`, {
        headers: {
          host: `127.0.0.1:${server.port}`,
          'accept-encoding': 'br',
          origin: 'https://shop.example',
        },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(brotliDecompressSync(answer.bytes).equals(file)).toBe(true);
    }
  },
);

test.each([
  ['gzip, deflate, br', 'br'],
  ['br;q=0, gzip', 'gzip'],
  ['gzip;q=0', 'identity'],
  ['*', 'br'],
  ['identity', 'identity'],
  [undefined, 'identity'],
])('Accept-Encoding %s -> %s', (header, encoding) => {
  expect(chooseEncoding(header)).toBe(encoding);
});
