/**
 * What an uploaded file is, from its bytes alone: its type by signature (the widget
 * checks by the same rule before it uploads) and its pixel size from its header, which
 * also proves the header is readable. Anything else is not an image to us. The pixels
 * themselves are not decoded here: a file cut short after its header is stored, and
 * the model's API says so when it reads it.
 */
import { IMAGE_SIGNATURE_BYTES, imageTypeOf, type ImageMimeType } from '@aalis/protocol';
import { imageSize } from 'image-size';

export interface ImageFacts {
  mimeType: ImageMimeType;
  width: number;
  height: number;
}

export function describeImage(data: Buffer): ImageFacts | undefined {
  const mimeType = imageTypeOf(data.subarray(0, IMAGE_SIGNATURE_BYTES));
  if (!mimeType) return undefined;
  try {
    // A copy: image-size reads through the bytes' ArrayBuffer, and a small Buffer is a
    // view into Node's shared pool, so it would read past the upload into other memory.
    const { width, height } = imageSize(new Uint8Array(data));
    return width > 0 && height > 0 ? { mimeType, width, height } : undefined;
  } catch {
    return undefined;
  }
}
