/**
 * The conversation as Anthropic's Messages API takes it: the system prompt apart, user and
 * assistant turns alternating, tool calls as `tool_use` blocks, results as `tool_result`
 * blocks (with `is_error` and images), and Anthropic's own thinking sent back first.
 */
import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { ImageMimeTypeSchema } from '@aalis/protocol';
import type { ModelMessage, ToolImage } from '../core/types.js';

export const ANTHROPIC = 'anthropic';

/** The image types Anthropic reads: the protocol's own. */
const IMAGE_TYPES = new Set<string>(ImageMimeTypeSchema.options);

/** The conversation as Anthropic takes it: the system prompt apart, user and assistant turns alternating. */
export function toAnthropicMessages(messages: readonly ModelMessage[]): {
  system: string;
  messages: MessageParam[];
} {
  const system: string[] = [];
  const out: MessageParam[] = [];
  // Consecutive messages of one role become one: tool results and the next question share a user turn.
  const add = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last?.role === role) (last.content as ContentBlockParam[]).push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        // The images first, then the question: what Anthropic's guide advises.
        add('user', [
          ...(message.images ?? []).filter((image) => IMAGE_TYPES.has(image.mimeType)).map(imageBlock),
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
        ]);
        break;
      case 'tool':
        add('user', [toolResult(message)]);
        break;
      case 'assistant':
        add('assistant', assistantBlocks(message));
        break;
    }
  }
  return { system: system.join('\n\n'), messages: out };
}

function assistantBlocks(message: Extract<ModelMessage, { role: 'assistant' }>): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  // Thinking from another provider has no signature and cannot be sent; Anthropic's own is sent first, as it came.
  if (message.replay?.provider === ANTHROPIC) blocks.push(...(message.replay.items as ContentBlockParam[]));
  if (message.content) blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: inputObject(call.arguments) });
  }
  return blocks;
}

/** A tool_use input must be an object: arguments that were not one are sent as none (the result says why). */
function inputObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function toolResult(message: Extract<ModelMessage, { role: 'tool' }>): ToolResultBlockParam {
  const images = (message.images ?? []).filter((image) => IMAGE_TYPES.has(image.mimeType));
  return {
    type: 'tool_result',
    tool_use_id: message.toolCallId,
    content: images.length
      ? // Anthropic refuses an empty text block.
        [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...images.map(imageBlock),
        ]
      : message.content,
    ...(message.isError ? { is_error: true } : {}),
  };
}

const imageBlock = (image: ToolImage) => ({
  type: 'image' as const,
  source: {
    type: 'base64' as const,
    media_type: image.mimeType as 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp',
    data: image.data,
  },
});
