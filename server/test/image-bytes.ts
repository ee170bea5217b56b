/**
 * Images made in the test, byte for byte as the formats define them: PNGs from their
 * chunks (CRC-32 and zlib from node:zlib), so that a test can make one valid, or wrong in
 * exactly one way (a header alone, image data one row short, a bad CRC).
 */
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One chunk: length, type, data, and the CRC of type and data. */
export function pngChunk(type: string, data: Buffer = Buffer.alloc(0)): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const framed = Buffer.alloc(typed.length + 8);
  framed.writeUInt32BE(data.length, 0);
  typed.copy(framed, 4);
  framed.writeUInt32BE(crc32(typed), typed.length + 4);
  return framed;
}

export interface PngShape {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA; 2 by default. */
  colourType?: number;
  bitDepth?: number;
  interlaced?: boolean;
}

/** IHDR's 13 bytes. */
export function ihdr({ width, height, colourType = 2, bitDepth = 8, interlaced = false }: PngShape): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([bitDepth, colourType, 0, 0, interlaced ? 1 : 0], 8);
  return header;
}

/** A PNG of these chunks after the signature and IHDR (IEND is not added). */
export const pngOf = (shape: PngShape, ...chunks: Buffer[]): Buffer =>
  Buffer.concat([SIGNATURE, pngChunk('IHDR', ihdr(shape)), ...chunks]);

/** A whole PNG whose image data inflates to `dataBytes` (zeros: every row unfiltered, black). */
export function png(shape: PngShape, dataBytes: number): Buffer {
  const palette = shape.colourType === 3 ? [pngChunk('PLTE', Buffer.from([0, 0, 0]))] : [];
  const idat = pngChunk('IDAT', deflateSync(Buffer.alloc(dataBytes), { level: 9 }));
  return pngOf(shape, ...palette, idat, pngChunk('IEND'));
}
