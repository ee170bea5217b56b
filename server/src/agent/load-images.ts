/**
 * The bytes of the images a turn's context names, loaded once per turn (every model round
 * sends them again), base64 as every provider's API wants them.
 */
import type { ChatMessage } from '@aalis/protocol';
import type { ToolImage } from '../providers/types.js';

export type ImageSource = (id: string) => Promise<{ mimeType: string; data: Buffer } | undefined>;

export async function loadImages(
  messages: readonly ChatMessage[],
  source: ImageSource | undefined,
): Promise<Map<string, ToolImage>> {
  const loaded = new Map<string, ToolImage>();
  if (!source) return loaded;
  for (const message of messages) {
    for (const { id } of message.images ?? []) {
      if (loaded.has(id)) continue;
      const image = await source(id);
      if (image) loaded.set(id, { mimeType: image.mimeType, data: image.data.toString('base64') });
    }
  }
  return loaded;
}
