/**
 * The bytes of the images a turn's context names, loaded once per turn (every model round
 * sends them again), base64 as every provider's API wants them: the newest first, within
 * `CONTEXT_IMAGES`, so that a long conversation of images never makes a request the
 * provider refuses (older ones are named in the text instead: model-messages.ts).
 */
import type { ChatMessage } from '@aalis/protocol';
import { CONTEXT_IMAGES } from '../images/image-settings.js';
import type { ToolImage } from '../providers/core/types.js';

export type ImageSource = (id: string) => Promise<{ mimeType: string; data: Buffer } | undefined>;

export async function loadImages(
  messages: readonly ChatMessage[],
  source: ImageSource | undefined,
  limits: { count: number; bytes: number } = CONTEXT_IMAGES,
): Promise<Map<string, ToolImage>> {
  const loaded = new Map<string, ToolImage>();
  if (!source) return loaded;
  let bytes = 0;
  const newestFirst = messages.flatMap((message) => message.images ?? []).reverse();
  for (const ref of newestFirst) {
    if (loaded.has(ref.id)) continue;
    if (loaded.size >= limits.count || bytes + ref.bytes > limits.bytes) break;
    const image = await source(ref.id);
    if (!image) continue;
    bytes += image.data.length;
    loaded.set(ref.id, { mimeType: image.mimeType, data: image.data.toString('base64') });
  }
  return loaded;
}
