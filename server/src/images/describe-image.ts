/**
 * What an uploaded file is, from its bytes alone: its type by signature (the widget
 * checks by the same rule before it uploads) and its pixel size from its header, which
 * also proves the header is readable. Anything else is not an image to us.
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
    const { width, height } = imageSize(data);
    return width > 0 && height > 0 ? { mimeType, width, height } : undefined;
  } catch {
    return undefined;
  }
}
