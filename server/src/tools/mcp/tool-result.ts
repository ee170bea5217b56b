/**
 * What an MCP tool's result becomes for the model and the tool block. One value goes to
 * both (the widget pretty-prints it as JSON), so the shape is the plainest that keeps
 * everything the server sent:
 *
 * - text only (the common case): the text blocks joined by newlines, a plain string;
 * - otherwise an object: `content` (the text, with a note in place of whatever is not
 *   text or an image), `structured` (the tool's `structuredContent`), `images`
 *   (`{ type: 'image', mimeType, data }`, base64, each up to 1 MB; a larger one is
 *   replaced by a note in `content`).
 *
 * A text block that only repeats `structuredContent` as JSON (what the MCP specification
 * asks servers to send for older clients) is left out: the model would read it twice.
 * `isError: true` throws a ToolError with the text, so the model sees a tool error.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../define-tool.js';

export interface McpImage {
  type: 'image';
  mimeType: string;
  /** Base64. */
  data: string;
}

export interface McpToolOutput {
  content?: string;
  structured?: unknown;
  images?: McpImage[];
}

export type McpToolResult = string | McpToolOutput;

/** The largest image kept, in base64 characters (about 750 kB of image). */
export const MAX_IMAGE_BASE64_CHARS = 1024 * 1024;

export function toolResultOf(result: CallToolResult): McpToolResult {
  const texts: string[] = [];
  const images: McpImage[] = [];
  for (const block of result.content ?? []) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'image' && block.data.length <= MAX_IMAGE_BASE64_CHARS)
      images.push({ type: 'image', mimeType: block.mimeType, data: block.data });
    else texts.push(noteFor(block));
  }

  if (result.isError) {
    throw new ToolError(texts.join('\n').trim() || 'the tool reported an error and said nothing more');
  }
  const structured = result.structuredContent;
  const content = texts.filter((text) => structured === undefined || !repeats(text, structured)).join('\n');
  if (structured === undefined && images.length === 0) return content;
  return {
    ...(content === '' ? {} : { content }),
    ...(structured === undefined ? {} : { structured }),
    ...(images.length === 0 ? {} : { images }),
  };
}

/** Whether `text` is `structured` written as JSON. */
function repeats(text: string, structured: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}

const size = (base64: string) => {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.ceil(bytes / 1000)} kB`;
};

/** What the model and the visitor read in place of a block that is not shown. */
function noteFor(block: Exclude<ContentBlock, { type: 'text' }>): string {
  switch (block.type) {
    case 'image':
      return `[${block.mimeType} image of ${size(block.data)} left out: larger than the 1 MB kept per image]`;
    case 'audio':
      return `[${block.mimeType} audio of ${size(block.data)} left out]`;
    case 'resource_link':
      return `[resource: ${block.name} ${block.uri}]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource) return resource.text;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''} left out: not text]`;
    }
  }
}
