/**
 * Whether a PNG's image data holds exactly the pixels its header claims: the IDAT stream
 * inflated and its length compared with what the header calls for (`pngDataLength`). A
 * stream that is cut short, corrupt, or inflates to more or less is refused.
 *
 * The inflating is streamed and only counted, never kept, and stops as soon as it passes
 * the expected length: memory stays at zlib's window whatever the stream claims, and the
 * work is bounded by the caller's pixel cap (MAX_PIXELS), which is checked first. It runs
 * on libuv's thread pool, so the event loop serves other requests meanwhile.
 */
import { createInflate } from 'node:zlib';
import { pngDataLength, type PngHeader } from './png-header.js';

/** Output chunks of this size: fewer events than zlib's 16 KiB on a large image. */
const CHUNK_BYTES = 64 * 1024;

export function pngPixelsComplete(header: PngHeader, idat: readonly Buffer[]): Promise<boolean> {
  const expected = pngDataLength(header);
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: CHUNK_BYTES });
    let inflated = 0;
    let settled = false;
    const settle = (complete: boolean) => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      resolve(complete);
    };
    inflate.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > expected) settle(false);
    });
    inflate.on('end', () => settle(inflated === expected));
    // A corrupt stream, or one that ends before its end marker.
    inflate.on('error', () => settle(false));
    for (const part of idat) inflate.write(part);
    inflate.end();
  });
}
