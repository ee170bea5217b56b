/**
 * A WebP's structure (RIFF container, Google's "WebP Container Specification"): the RIFF
 * size is the file's (a writer may leave the final pad byte out of it), every chunk's
 * length lies inside it, and the first chunk is one of the three forms:
 * - `VP8 ` (lossy): a key frame's tag, start code and size, and its first partition
 *   inside the chunk (RFC 6386, section 9.1);
 * - `VP8L` (lossless): its signature, size and version 0, and data after them;
 * - `VP8X` (extended): the canvas size, then a `VP8 `/`VP8L` image of that size or, for an
 *   animation, `ANMF` frames inside the canvas, each holding such an image.
 * A header alone, or a file cut short, fails. The compressed data is not decoded.
 */
import type { ImageStructure } from './image-structure.js';

interface Chunk {
  fourcc: string;
  body: Buffer;
}

/** Bit 1 of VP8X's flags: the file is an animation. */
const ANIMATION = 0x02;

export function webpStructure(data: Buffer): ImageStructure | undefined {
  if (
    data.length < 12 ||
    data.toString('latin1', 0, 4) !== 'RIFF' ||
    data.toString('latin1', 8, 12) !== 'WEBP'
  )
    return undefined;
  const end = 8 + data.readUInt32LE(4);
  if (end !== data.length && !(end % 2 === 1 && end + 1 === data.length)) return undefined;
  const chunks = chunksOf(data, 12, end);
  const [first] = chunks ?? [];
  if (!first) return undefined;
  if (first.fourcc !== 'VP8X') return imageOf(first);
  const canvas = extendedCanvas(first.body);
  if (!canvas) return undefined;
  const rest = chunks!.slice(1);
  if (first.body[0]! & ANIMATION) {
    const frames = rest.filter((chunk) => chunk.fourcc === 'ANMF');
    return frames.length > 0 && frames.every((frame) => frameFits(frame.body, canvas)) ? canvas : undefined;
  }
  const image = rest.find((chunk) => chunk.fourcc === 'VP8 ' || chunk.fourcc === 'VP8L');
  const size = image && imageOf(image);
  return size && size.width === canvas.width && size.height === canvas.height ? canvas : undefined;
}

/** The chunks between `from` and `to`, each inside them; undefined when one is not. */
function chunksOf(data: Buffer, from: number, to: number): Chunk[] | undefined {
  const chunks: Chunk[] = [];
  let at = from;
  while (at < to) {
    if (at + 8 > to) return undefined;
    const size = data.readUInt32LE(at + 4);
    if (at + 8 + size > to) return undefined;
    chunks.push({ fourcc: data.toString('latin1', at, at + 4), body: data.subarray(at + 8, at + 8 + size) });
    // An odd-sized chunk is followed by a pad byte (which the last chunk may lack).
    at += 8 + size + (size % 2);
  }
  return chunks;
}

/** The size of a `VP8 ` or `VP8L` image; undefined for another chunk or a bad header. */
function imageOf({ fourcc, body }: Chunk): ImageStructure | undefined {
  if (fourcc === 'VP8 ') return lossySize(body);
  if (fourcc === 'VP8L') return losslessSize(body);
  return undefined;
}

/** RFC 6386, 9.1: a 3-byte frame tag (a key frame, shown), the start code, 14-bit sizes. */
function lossySize(body: Buffer): ImageStructure | undefined {
  if (body.length < 10) return undefined;
  const tag = body.readUIntLE(0, 3);
  const keyFrame = (tag & 1) === 0;
  const shown = (tag >> 4) & 1;
  const firstPartition = tag >>> 5;
  if (!keyFrame || !shown || 10 + firstPartition > body.length) return undefined;
  if (body[3] !== 0x9d || body[4] !== 0x01 || body[5] !== 0x2a) return undefined;
  const width = body.readUInt16LE(6) & 0x3fff;
  const height = body.readUInt16LE(8) & 0x3fff;
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** The lossless bitstream's header: 0x2F, then 14 bits each of width-1 and height-1, alpha, version 0. */
function losslessSize(body: Buffer): ImageStructure | undefined {
  if (body.length <= 5 || body[0] !== 0x2f) return undefined;
  const bits = body.readUInt32LE(1);
  if (bits >>> 29 !== 0) return undefined;
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

/** VP8X: flags, 3 reserved bytes, then the canvas's width-1 and height-1 in 24 bits each. */
function extendedCanvas(body: Buffer): ImageStructure | undefined {
  if (body.length < 10) return undefined;
  return { width: body.readUIntLE(4, 3) + 1, height: body.readUIntLE(7, 3) + 1 };
}

/** An ANMF frame: its offset (in pairs of pixels) and size inside the canvas, and an image of that size. */
function frameFits(body: Buffer, canvas: ImageStructure): boolean {
  if (body.length < 16) return false;
  const x = body.readUIntLE(0, 3) * 2;
  const y = body.readUIntLE(3, 3) * 2;
  const width = body.readUIntLE(6, 3) + 1;
  const height = body.readUIntLE(9, 3) + 1;
  if (x + width > canvas.width || y + height > canvas.height) return false;
  const image = chunksOf(body, 16, body.length)?.find(
    (chunk) => chunk.fourcc === 'VP8 ' || chunk.fourcc === 'VP8L',
  );
  const size = image && imageOf(image);
  return size !== undefined && size.width === width && size.height === height;
}
