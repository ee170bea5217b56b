/**
 * A tool call's record as the chat keeps it, turned back into what an MCP App expects:
 * its arguments as an object, its result as MCP's `CallToolResult`. The server stores an
 * MCP tool's result as a string (its text), or as `{ content?, structured?, images? }`; an
 * error as a string with `status: 'error'`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallPart } from '@aalis/protocol/client';
type Content = CallToolResult['content'][number];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The call's arguments: the text the model wrote (older servers and history may keep the
 * parsed value). Anything but a JSON object, or text that does not parse, is `{}`: the
 * model's words are never trusted to be well formed.
 */
export function toolArguments(part: ToolCallPart): Record<string, unknown> {
  let value = part.arguments;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return isRecord(value) ? value : {};
}

/** The call's result as a `CallToolResult`, `structuredContent` included. */
export function toolResult(part: ToolCallPart): CallToolResult {
  const { result } = part;
  const content: Content[] = [];
  let structuredContent: Record<string, unknown> | undefined;
  if (typeof result === 'string') content.push({ type: 'text', text: result });
  else if (isRecord(result)) {
    if (typeof result.content === 'string') content.push({ type: 'text', text: result.content });
    if (isRecord(result.structured)) structuredContent = result.structured;
    if (Array.isArray(result.images))
      for (const image of result.images as unknown[])
        if (isRecord(image) && typeof image.data === 'string' && typeof image.mimeType === 'string')
          content.push({ type: 'image', data: image.data, mimeType: image.mimeType });
  }
  return {
    content,
    ...(structuredContent ? { structuredContent } : {}),
    ...(part.status === 'error' ? { isError: true } : {}),
  };
}
