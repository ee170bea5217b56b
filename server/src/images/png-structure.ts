/**
 * A PNG's structure, walked chunk by chunk (PNG specification, section 5): every chunk's
 * length within the file and its CRC-32 right, IHDR first with a valid header, PLTE
 * before the image data where the colour type needs one, the IDAT chunks one run, IEND
 * last with nothing after it, and no critical chunk this reader does not know (a decoder
 * must refuse those), and IDAT data enough to inflate to the pixels the header claims. A
 * header alone, or a file cut short, fails here. Whether the IDAT stream does hold every
 * pixel is png-pixels.ts's check, run once the size is within the caps.
 */
import { crc32 } from 'node:zlib';
import type { ImageStructure } from './image-structure.js';
import { pngDataLength, pngHeaderOf, type PngHeader } from './png-header.js';
import { pngPixelsComplete } from './png-pixels.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Length, type, CRC: what a chunk adds to its data. */
const CHUNK_OVERHEAD = 12;

/**
 * Most bytes one byte of a zlib stream can inflate to: a 258-byte match coded in 2 bits
 * (RFC 1951). Image data longer than this allows is not in the file, whatever the header
 * says, and that is known without inflating anything.
 */
const MAX_INFLATE_RATIO = 1032;

/** The critical chunks; any other with an upper-case first letter makes the file unreadable. */
const CRITICAL = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND']);

export function pngStructure(data: Buffer): ImageStructure | undefined {
  if (data.length < SIGNATURE.length || !data.subarray(0, SIGNATURE.length).equals(SIGNATURE))
    return undefined;
  let header: PngHeader | undefined;
  const idat: Buffer[] = [];
  let idatDone = false;
  let palette = false;
  let at = SIGNATURE.length;
  for (;;) {
    if (at + CHUNK_OVERHEAD > data.length) return undefined;
    const length = data.readUInt32BE(at);
    const end = at + CHUNK_OVERHEAD + length;
    if (end > data.length) return undefined;
    const type = data.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) return undefined;
    // The CRC covers the type and the data (section 5.3).
    if (crc32(data.subarray(at + 4, end - 4)) !== data.readUInt32BE(end - 4)) return undefined;
    const body = data.subarray(at + 8, end - 4);
    at = end;
    if (!header) {
      if (type !== 'IHDR') return undefined;
      header = pngHeaderOf(body);
      if (!header) return undefined;
      continue;
    }
    if (/^[A-Z]/.test(type) && !CRITICAL.has(type)) return undefined;
    if (type === 'IHDR') return undefined;
    if (type === 'IDAT') {
      // The image data is one run of IDAT chunks (section 5.6).
      if (idatDone) return undefined;
      idat.push(body);
      continue;
    }
    if (idat.length > 0) idatDone = true;
    if (type === 'PLTE') {
      if (palette || idat.length > 0 || body.length === 0 || body.length % 3 !== 0 || body.length > 768)
        return undefined;
      palette = true;
    }
    if (type === 'IEND') {
      // The last chunk: nothing may follow it.
      if (body.length !== 0 || at !== data.length || idat.length === 0) return undefined;
      if (header.paletted && !palette) return undefined;
      const compressed = idat.reduce((sum, part) => sum + part.length, 0);
      if (pngDataLength(header) > compressed * MAX_INFLATE_RATIO) return undefined;
      const { width, height } = header;
      const known = header;
      return { width, height, pixelsComplete: () => pngPixelsComplete(known, idat) };
    }
  }
}
