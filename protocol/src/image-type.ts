/**
 * An image's type by its first bytes, never by its name or the type a browser guessed:
 * the widget checks a file before it uploads it, and the server checks what arrives, by
 * the same rule. A file whose bytes are none of these is not accepted, whatever it is
 * called.
 */
import type { ImageMimeType } from './shapes.js';

/** Bytes to read from a file's start to tell its type. */
export const IMAGE_SIGNATURE_BYTES = 12;

/** The type a file's first `IMAGE_SIGNATURE_BYTES` bytes say it is; undefined for anything else. */
export function imageTypeOf(head: Uint8Array): ImageMimeType | undefined {
  const at = (offset: number, ...bytes: number[]) => bytes.every((byte, i) => head[offset + i] === byte);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  // GIF87a or GIF89a.
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (at(4, 0x37, 0x61) || at(4, 0x39, 0x61))) return 'image/gif';
  // A RIFF container whose form is WEBP.
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}
