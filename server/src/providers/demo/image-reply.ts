/**
 * What the demo model says to a question with images: it cannot see them, but it can say
 * exactly what it was sent (each image's type, size and dimensions, read from the bytes of
 * its data URL), which shows that an attachment reached the model as an image part.
 */
import { imageSize } from 'image-size';
import type { Reply } from './script.js';

/** A Chat Completions content part, as the demo model reads it. */
export type ContentPart = { type: string; text?: string; image_url?: { url?: string } };

/** The images a user message's content parts carry: their data URLs. */
export function imageUrlsOf(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return (content as ContentPart[]).flatMap((part) =>
    part.type === 'image_url' && typeof part.image_url?.url === 'string' ? [part.image_url.url] : [],
  );
}

/** The text a user message's content carries, whether a string or parts. */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as ContentPart[]).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

export function imageReply(urls: readonly string[], question: string): Reply {
  const rows = urls.map((url, index) => {
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!match) return `| ${index + 1} | (not a data URL) | | |`;
    const bytes = Buffer.from(match[2]!, 'base64');
    let size = 'unreadable';
    try {
      const { width, height } = imageSize(bytes);
      size = `${width} × ${height}`;
    } catch {
      // Said as unreadable in the table.
    }
    return `| ${index + 1} | ${match[1]} | ${size} | ${(bytes.length / 1024).toFixed(1)} KB |`;
  });
  const asked = question.trim() ? `You asked: “${question.trim()}”\n\n` : '';
  return {
    steps: [
      {
        kind: 'text',
        text:
          `${asked}I'm the scripted demo model, so I cannot see images, but here is exactly what reached me, ` +
          `each as an image part of your question:\n\n| # | type | pixels | size |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n\n` +
          'Set a key for a model that reads images (OpenAI, Anthropic) and it will answer about them.',
      },
    ],
  };
}
