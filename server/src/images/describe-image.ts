/**
 * What an uploaded file is, from its bytes alone: its type by signature (the widget
 * checks by the same rule before it uploads), then its structure walked to its end by the
 * module for that format, which gives the pixel size the file really holds. A header
 * alone, a file cut short, or a chunk that is corrupt is not an image to us: a model
 * would be sent a picture nobody can see, and the claimed size would be a lie the caps
 * below believed.
 *
 * The size is then held to the caps (MAX_SIDE, MAX_PIXELS) before any pixel data is
 * decoded, and only then does a PNG's image data get inflated to prove it holds every
 * pixel (png-pixels.ts). JPEG, GIF and WebP data is walked, not decoded.
 */
import { IMAGE_SIGNATURE_BYTES, imageTypeOf, type ImageMimeType } from '@aalis/protocol';
import { gifStructure } from './gif-structure.js';
import type { ImageStructure } from './image-structure.js';
import { MAX_PIXELS, MAX_SIDE } from './image-settings.js';
import { jpegStructure } from './jpeg-structure.js';
import { pngStructure } from './png-structure.js';
import { webpStructure } from './webp-structure.js';

export interface ImageFacts {
  mimeType: ImageMimeType;
  width: number;
  height: number;
}

/**
 * An image, or why the file is not taken: `not_an_image` (no such type, or not whole),
 * `too_big` (over a side's cap, `side`, or over the pixel cap, `pixels`).
 */
export type ImageCheck =
  | { ok: true; facts: ImageFacts }
  | { ok: false; code: 'not_an_image' }
  | { ok: false; code: 'too_big'; limit: 'side' | 'pixels' };

const STRUCTURE_OF: Record<ImageMimeType, (data: Buffer) => ImageStructure | undefined> = {
  'image/png': pngStructure,
  'image/jpeg': jpegStructure,
  'image/gif': gifStructure,
  'image/webp': webpStructure,
};

const NOT_AN_IMAGE = { ok: false, code: 'not_an_image' } as const;

export async function describeImage(data: Buffer): Promise<ImageCheck> {
  const mimeType = imageTypeOf(data.subarray(0, IMAGE_SIGNATURE_BYTES));
  if (!mimeType) return NOT_AN_IMAGE;
  const structure = structureOf(mimeType, data);
  if (!structure) return NOT_AN_IMAGE;
  const { width, height } = structure;
  if (width > MAX_SIDE || height > MAX_SIDE) return { ok: false, code: 'too_big', limit: 'side' };
  if (width * height > MAX_PIXELS) return { ok: false, code: 'too_big', limit: 'pixels' };
  if (structure.pixelsComplete && !(await structure.pixelsComplete())) return NOT_AN_IMAGE;
  return { ok: true, facts: { mimeType, width, height } };
}

/**
 * The format's walk; a read past the end that a check missed (a RangeError from Buffer)
 * is a file cut short like any other, not a server error.
 */
function structureOf(mimeType: ImageMimeType, data: Buffer): ImageStructure | undefined {
  try {
    return STRUCTURE_OF[mimeType](data);
  } catch {
    return undefined;
  }
}
