/**
 * The tool card: one box per tool call, where its whole life shows in place. While the
 * model writes the call it is a ticking `<aalis-tool-progress>` (tool-card.ts, public part
 * `pending-card`); once the call is whole it is the message's `tool_call` part, a
 * collapsible `<details class="tool-call-block">` that says running, done or failed.
 * Both share the `.tool-call-block` box, so the card never jumps when the call starts.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ToolCallPart, ToolCallProgressEntry, ToolProgress } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { pretty, seconds } from '../../shared/format.js';
import { toolIcon } from '../../shared/icons.js';

/** What the cards being written need from the chat around them. */
export interface ToolCardContext {
  strings: Strings;
  /** The chat's theme: the cards pick their default colours by it. */
  theme: 'light' | 'dark' | 'auto';
  /** `localNow - serverTime`: the cards count on the server's clock. */
  offset: number;
}

/**
 * `extras` (a form an MCP server asks the visitor to fill, the tool's MCP App) show right
 * under the summary, and open the block when they come: the visitor must not have to find
 * them. `nothing` when there are none (controllers/transcript.ts), which leaves it closed.
 */
export function renderToolCall(
  part: ToolCallPart,
  strings: Strings,
  extras: unknown = nothing,
): TemplateResult {
  const { status, declined, progress } = part;
  // A declined call never ran: it says so, not that it failed, and has no duration. An
  // `unknown` one may have run (its server died meanwhile): neither done nor failed, in
  // the warning colour, so the visitor checks before asking for it again.
  const statusText = declined
    ? declined === 'user'
      ? strings.toolDeclined
      : strings.toolExpired
    : status === 'running'
      ? strings.toolRunning
      : status === 'done'
        ? strings.toolDone
        : status === 'unknown'
          ? strings.toolUnknown
          : strings.toolError;
  // An unknown call's `endedAt` is when another server gave up on it, not when it ended.
  // The time counts on from the card's: writing the call, then running it.
  const duration =
    part.endedAt === undefined || declined || status === 'unknown'
      ? nothing
      : html` · ${seconds((part.writingMs ?? 0) + part.endedAt - part.startedAt)}`;
  return html`<details
    class="tool-call-block"
    part="tool-call-block"
    data-status=${status}
    data-declined=${declined ?? nothing}
    data-call-id=${part.callId}
    ?open=${extras !== nothing}
  >
    <summary>
      <span class="tool-icon" aria-hidden="true">${toolIcon}</span>
      <span class="tool-name" title=${part.name}>${part.name}</span>
      <span class="tool-status">${statusText}${duration}</span>
      ${
        // In the summary, so it shows whether the block is open or closed.
        progress && status === 'running' ? renderProgress(part.name, progress) : nothing
      }
    </summary>
    ${extras}
    ${
      // Absent in history from a server that sent them only with `tool_execute` start,
      // and for a client that joined after it: no section rather than "undefined".
      part.arguments === undefined
        ? nothing
        : html`<h6>${strings.toolArguments}</h6>
            <pre>${pretty(part.arguments)}</pre>`
    }
    ${
      part.result === undefined
        ? nothing
        : html`<h6>${status === 'error' && !declined ? strings.toolErrorLabel : strings.toolResult}</h6>
            ${renderResult(part.result, part.name, strings)}`
    }
  </details>`;
}

/** Image types shown inline; never SVG, which can carry script. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** Strict base64: the alphabet, padding only at the end; the length is checked apart. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The largest image shown, in base64 characters (1.5 MB). */
const MAX_IMAGE_CHARS = 1.5 * 1024 * 1024;

/**
 * A tool's result. An MCP tool's `{ content?, structured?, images? }` shows its text as
 * text, `structured` as JSON and each image as an `<img>`, never as base64; any other
 * value is pretty-printed as it is.
 */
function renderResult(result: unknown, name: string, strings: Strings): unknown {
  const images = (result as { images?: unknown } | null)?.images;
  if (typeof result !== 'object' || !Array.isArray(images)) return html`<pre>${pretty(result)}</pre>`;
  const { images: _, content, ...rest } = result as Record<string, unknown>;
  const keys = Object.keys(rest);
  const other =
    keys.length === 1 && keys[0] === 'structured' ? rest.structured : keys.length ? rest : undefined;
  return [
    content === undefined ? nothing : html`<pre>${pretty(content)}</pre>`,
    other === undefined ? nothing : html`<pre>${pretty(other)}</pre>`,
    images.map((image) => renderImage(image, name, strings)),
  ];
}

/** One image, or a short note in place of one that is not shown. */
function renderImage(image: unknown, name: string, strings: Strings): TemplateResult {
  const { mimeType, data } = (image ?? {}) as { mimeType?: unknown; data?: unknown };
  const type = typeof mimeType === 'string' ? mimeType : 'image';
  return IMAGE_TYPES.includes(type) &&
    typeof data === 'string' &&
    data.length % 4 === 0 &&
    data.length < MAX_IMAGE_CHARS &&
    BASE64.test(data)
    ? html`<img
        class="tool-image"
        part="tool-image"
        alt=${strings.toolImage(name)}
        decoding="async"
        src=${`data:${type};base64,${data}`}
      />`
    : html`<p class="tool-image-note">${strings.toolImageHidden(type)}</p>`;
}

/**
 * A running tool's own report: a bar (indeterminate until the tool knows its total), what
 * it is doing, and the count, `3 / 5` or `3`.
 */
function renderProgress(name: string, { progress, total, message }: ToolProgress): TemplateResult {
  const count = total === undefined ? num(progress) : `${num(progress)} / ${num(total)}`;
  return html`<span class="tool-progress" part="tool-progress">
    <progress
      aria-label=${name}
      max=${total === undefined ? nothing : total}
      value=${total === undefined ? nothing : progress}
    ></progress>
    ${message ? html`<span class="tool-progress-message">${message}</span>` : nothing}
    <span class="tool-progress-count">${count}</span>
  </span>`;
}

/** At most two decimals: tools may report fractions. */
const num = (n: number): number => Math.round(n * 100) / 100;

/** The tool cards whose calls are still being written, one per index in ascending order. */
export function renderToolCards(cards: readonly ToolCallProgressEntry[], context: ToolCardContext): unknown {
  return repeat(
    cards,
    (card) => card.index,
    (card) =>
      html`<aalis-tool-progress
        class="tool-call-block tool-call-block-pending"
        part="pending-card"
        exportparts="icon: pending-card-icon, name: pending-card-name, meta: pending-card-meta"
        theme=${context.theme}
        data-index=${card.index}
        .entry=${card}
        .offset=${context.offset}
        .strings=${context.strings}
      ></aalis-tool-progress>`,
  );
}
