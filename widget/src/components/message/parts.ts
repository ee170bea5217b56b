/**
 * How an assistant message's parts render: reasoning (collapsible), markdown text and
 * tool cards (../tool-card/), in order.
 */
import { html, type TemplateResult } from 'lit';
import type { Part, ToolCallPart } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { MarkdownCache, renderMarkdown, type RenderOptions } from '../../markdown/render.js';
import { renderToolCall } from '../tool-card/tool-call-block.js';

export interface PartContext {
  strings: Strings;
  /** The chat's theme, handed to the cards (they pick their default colours by it). */
  theme: 'light' | 'dark' | 'auto';
  offset: number;
  markdown: RenderOptions;
  /** Caches for streaming text, by part position, so only the last block is re-parsed. */
  caches?: Map<number, MarkdownCache>;
  /** True while the message is still being written. */
  streaming: boolean;
  /** How long each reasoning part took, by its position in the parts, when known. */
  reasoningMs?: ReadonlyMap<number, number> | undefined;
  /**
   * What shows inside a tool call's card besides its own record, open without a click: an
   * MCP server's requests for the visitor's input, the tool's MCP App. `nothing` for none.
   */
  toolExtras?: ((part: ToolCallPart) => unknown) | undefined;
}

export function renderParts(parts: readonly Part[], context: PartContext): TemplateResult[] {
  return parts.map((part, i) => {
    switch (part.type) {
      case 'text':
        return html`<div class="text">${markdownOf(part.text, i, context)}</div>`;
      case 'reasoning':
        return renderReasoning(part.text, context.streaming && i === parts.length - 1, i, context);
      case 'tool_call':
        return renderToolCall(part, context.strings, context.toolExtras?.(part));
    }
  });
}

function markdownOf(text: string, index: number, context: PartContext): unknown[] {
  if (!context.caches) return renderMarkdown(text, context.markdown);
  let cache = context.caches.get(index);
  if (!cache) context.caches.set(index, (cache = new MarkdownCache(context.markdown)));
  return cache.render(text);
}

function renderReasoning(text: string, live: boolean, index: number, context: PartContext): TemplateResult {
  const { strings } = context;
  const ms = context.reasoningMs?.get(index);
  const label = live || ms === undefined ? strings.reasoning : strings.reasoningFor((ms / 1000).toFixed(1));
  // Open while it streams, collapsed once the answer starts.
  return html`<details class="reasoning" part="reasoning" ?open=${live}>
    <summary>${label}</summary>
    <p>${text}</p>
  </details>`;
}
