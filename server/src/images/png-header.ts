/**
 * A PNG's IHDR chunk (PNG specification, section 11.2.2): the size, and what the length
 * of the image data follows from, when every field has a value the specification allows;
 * and that length (sections 7.2 and 8.2: every scanline is a filter byte and its packed
 * pixels; an Adam7 image is seven reduced images, an empty one without scanlines).
 */

/** Samples per pixel, and the bit depths allowed, for each colour type (section 11.2.2). */
const COLOUR_TYPES: Record<number, { channels: number; depths: readonly number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** What IHDR says: the size, and what the pixel data's length follows from. */
export interface PngHeader {
  width: number;
  height: number;
  bitsPerPixel: number;
  interlaced: boolean;
  /** Palette images: they need a PLTE chunk. */
  paletted: boolean;
}

/** IHDR's 13 bytes, when every field has an allowed value (section 11.2.2). */
export function pngHeaderOf(body: Buffer): PngHeader | undefined {
  if (body.length !== 13) return undefined;
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const [depth, colourType, compression, filter, interlace] = body.subarray(8);
  const colour = COLOUR_TYPES[colourType!];
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff) return undefined;
  if (!colour?.depths.includes(depth!) || compression !== 0 || filter !== 0 || interlace! > 1)
    return undefined;
  return {
    width,
    height,
    bitsPerPixel: colour.channels * depth!,
    interlaced: interlace === 1,
    paletted: colourType === 3,
  };
}

/** Adam7's passes: where each starts in an 8×8 block, and its steps (section 8.2). */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The length of the inflated image data a header calls for. */
export function pngDataLength({ width, height, bitsPerPixel, interlaced }: PngHeader): number {
  const image = (w: number, h: number) =>
    w === 0 || h === 0 ? 0 : h * (1 + Math.ceil((w * bitsPerPixel) / 8));
  if (!interlaced) return image(width, height);
  let total = 0;
  for (const [x, y, dx, dy] of ADAM7) {
    total += image(Math.ceil(Math.max(0, width - x) / dx), Math.ceil(Math.max(0, height - y) / dy));
  }
  return total;
}
