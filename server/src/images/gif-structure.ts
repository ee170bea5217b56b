/**
 * A GIF's structure, walked block by block (GIF89a specification, sections 17-27): the
 * logical screen and its colour table, then extensions and images, each image's
 * descriptor, colour table and LZW data as sub-blocks ended by an empty one, to the
 * trailer (0x3B). At least one image, each inside the logical screen and with data. A
 * header alone, or a file cut short, fails. The LZW data is not decoded, and bytes after
 * the trailer are not read: old encoders left some there (Python's own IDLE icons), and
 * a decoder stops at the trailer.
 */
import type { ImageStructure } from './image-structure.js';

const EXTENSION = 0x21;
const IMAGE = 0x2c;
const TRAILER = 0x3b;
/** Header (6) and logical screen descriptor (7). */
const SCREEN_END = 13;

/** The bytes of a colour table a packed field announces (its bit 7 set). */
const colourTable = (packed: number) => (packed & 0x80 ? 3 * (2 << (packed & 0x07)) : 0);

export function gifStructure(data: Buffer): ImageStructure | undefined {
  if (data.length < SCREEN_END) return undefined;
  const width = data.readUInt16LE(6);
  const height = data.readUInt16LE(8);
  if (width === 0 || height === 0) return undefined;
  let at = SCREEN_END + colourTable(data[10]!);
  let images = 0;
  while (at < data.length) {
    const block = data[at++]!;
    if (block === TRAILER) return images > 0 ? { width, height } : undefined;
    if (block === EXTENSION) {
      // Its label, then its sub-blocks.
      const end = subBlocksEnd(data, at + 1);
      if (end === undefined) return undefined;
      at = end;
    } else if (block === IMAGE) {
      if (at + 9 > data.length) return undefined;
      const [left, top, frameWidth, frameHeight] = [0, 2, 4, 6].map((offset) =>
        data.readUInt16LE(at + offset),
      );
      if (frameWidth === 0 || frameHeight === 0) return undefined;
      if (left! + frameWidth! > width || top! + frameHeight! > height) return undefined;
      at += 9 + colourTable(data[at + 8]!);
      // The LZW minimum code size (codes are at most 12 bits wide), then the data.
      const codeSize = data[at++];
      if (codeSize === undefined || codeSize < 1 || codeSize > 11) return undefined;
      if (!data[at]) return undefined;
      const end = subBlocksEnd(data, at);
      if (end === undefined) return undefined;
      at = end;
      images++;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** After the sub-blocks that start at `at` (a length byte, that many bytes, ... a 0); undefined when cut short. */
function subBlocksEnd(data: Buffer, from: number): number | undefined {
  let at = from;
  for (;;) {
    if (at >= data.length) return undefined;
    const size = data[at]!;
    at += 1 + size;
    if (size === 0) return at;
  }
}
