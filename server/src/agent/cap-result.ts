/**
 * A tool's result, cut to a length every tab and the model can take. A result goes to
 * every connection of the session, into the history, and back to the model; a tool that
 * returns megabytes (a whole file, a query without a limit) would otherwise make the
 * session one no tab can join, and a context no model can read.
 *
 * Images (an MCP tool's, as `{ images: [{ type: 'image', mimeType, data }] }`) have their
 * own budget: they are shown to the user, and sent to the model only by providers whose
 * tool results take images (model-messages.ts); cutting base64 in the middle would only
 * break them. Images past the budget are left out, and the result says so.
 */

/** Base64 characters of images one result keeps: about 1.1 MB of pictures. */
export const MAX_TOOL_IMAGE_CHARS = 1_500_000;

interface ImageEntry {
  type: 'image';
  mimeType: string;
  data: string;
}

export function capResult(result: unknown, maxChars: number, maxImageChars = MAX_TOOL_IMAGE_CHARS): unknown {
  const images = imagesOf(result);
  if (!images) return capText(result, maxChars);
  const { images: _images, ...rest } = result as { images: unknown[] };
  const kept: ImageEntry[] = [];
  let budget = maxImageChars;
  for (const image of images) {
    if (image.data.length > budget) continue;
    kept.push(image);
    budget -= image.data.length;
  }
  const left = images.length - kept.length;
  const note = left
    ? `[${left} of ${images.length} images left out: over ${maxImageChars} characters]`
    : undefined;
  const cappedRest = capText(rest, maxChars);
  // A cut rest is text now: it becomes the result's content, next to the images kept.
  const body: Record<string, unknown> =
    typeof cappedRest === 'string' ? { content: cappedRest } : { ...(cappedRest as object) };
  if (note) body.content = typeof body.content === 'string' ? `${body.content}\n${note}` : note;
  return { ...body, images: kept };
}

/** The result's images, when it is an object whose `images` are all well-formed entries. */
export function imagesOf(result: unknown): ImageEntry[] | undefined {
  if (typeof result !== 'object' || result === null || !('images' in result)) return undefined;
  const { images } = result as { images: unknown };
  if (!Array.isArray(images) || !images.every(isImageEntry)) return undefined;
  return images;
}

const isImageEntry = (value: unknown): value is ImageEntry =>
  typeof value === 'object' &&
  value !== null &&
  (value as ImageEntry).type === 'image' &&
  typeof (value as ImageEntry).mimeType === 'string' &&
  typeof (value as ImageEntry).data === 'string';

function capText(result: unknown, maxChars: number): unknown {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  if (text === undefined || text.length <= maxChars) return result;
  return `${text.slice(0, maxChars)}… [cut: the result had ${text.length} characters, the first ${maxChars} are kept]`;
}
