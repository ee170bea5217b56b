/**
 * Markdown to Lit templates, with no `innerHTML` anywhere: marked only lexes, and each
 * token becomes a template whose text Lit escapes. Model output is hostile input, so
 * raw HTML in it is shown as text, and links keep only http, https and mailto URLs
 * (never `javascript:` or `data:`), opening with `rel="noopener noreferrer"`.
 *
 * While a message streams, only its last block changes: `MarkdownCache` keeps the
 * templates of the blocks before it and re-lexes from the last block's start.
 *
 * Until marked has loaded (lexer.ts), a text shows as it is, its line breaks kept.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { Token, Tokens } from 'marked';
import { blockStartBefore } from './block-start.js';
import { lexer, type Lex } from './lexer.js';
import { scrollRegion } from './scroll-region.js';

export interface RenderOptions {
  copyLabel: string;
  /** Names a table too wide for its bubble, which then scrolls sideways (scroll-region.ts). */
  tableLabel: string;
  onCopy(code: string, button: HTMLButtonElement): void;
}

const SAFE_URL = /^(https?:|mailto:)/i;

/** The URL when it is safe to follow, else undefined. */
export function safeUrl(href: string | undefined): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  // Relative links would resolve against the host page: only absolute, known schemes.
  return SAFE_URL.test(trimmed) ? trimmed : undefined;
}

function inline(tokens: Token[] | undefined, options: RenderOptions): unknown[] {
  return (tokens ?? []).map((token) => inlineToken(token, options));
}

function inlineToken(token: Token, options: RenderOptions): unknown {
  switch (token.type) {
    case 'strong':
      return html`<strong>${inline((token as Tokens.Strong).tokens, options)}</strong>`;
    case 'em':
      return html`<em>${inline((token as Tokens.Em).tokens, options)}</em>`;
    case 'del':
      return html`<del>${inline((token as Tokens.Del).tokens, options)}</del>`;
    case 'codespan':
      return html`<code>${(token as Tokens.Codespan).text}</code>`;
    case 'br':
      return html`<br />`;
    case 'link': {
      const link = token as Tokens.Link;
      const href = safeUrl(link.href);
      const content = inline(link.tokens, options);
      return href
        ? html`<a href=${href} target="_blank" rel="noopener noreferrer">${content}</a>`
        : html`<span>${content}</span>`;
    }
    case 'image': {
      // Images from a model can be tracking pixels: shown as a link to follow, not fetched.
      const image = token as Tokens.Image;
      const href = safeUrl(image.href);
      return href
        ? html`<a href=${href} target="_blank" rel="noopener noreferrer">${image.text || href}</a>`
        : image.text;
    }
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens, options) : decode(text.text);
    }
    case 'escape':
      return (token as Tokens.Escape).text;
    case 'html':
      return (token as Tokens.HTML).raw;
    default:
      return 'raw' in token ? token.raw : '';
  }
}

function block(token: Token, options: RenderOptions): TemplateResult | typeof nothing | string {
  switch (token.type) {
    case 'space':
    case 'def':
      return nothing;
    case 'heading': {
      const heading = token as Tokens.Heading;
      const content = inline(heading.tokens, options);
      switch (heading.depth) {
        case 1:
          return html`<h3>${content}</h3>`;
        case 2:
          return html`<h4>${content}</h4>`;
        default:
          return html`<h5>${content}</h5>`;
      }
    }
    case 'paragraph':
      return html`<p>${inline((token as Tokens.Paragraph).tokens, options)}</p>`;
    case 'text': {
      const text = token as Tokens.Text;
      return html`<p>${text.tokens ? inline(text.tokens, options) : text.text}</p>`;
    }
    case 'code': {
      const code = token as Tokens.Code;
      return html`<div class="code-block" part="code-block">
        <div class="code-head">
          <span class="code-lang">${code.lang ?? ''}</span>
          <button
            type="button"
            class="copy"
            @click=${(e: Event) => options.onCopy(code.text, e.currentTarget as HTMLButtonElement)}
          >
            ${options.copyLabel}
          </button>
        </div>
        <pre><code>${code.text}</code></pre>
      </div>`;
    }
    case 'blockquote':
      return html`<blockquote>
        ${(token as Tokens.Blockquote).tokens.map((t) => block(t, options))}
      </blockquote>`;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map(
        (item) =>
          html`<li>
            ${item.task ? html`<input type="checkbox" disabled .checked=${!!item.checked} />` : nothing}
            ${item.tokens.map((t) => (t.type === 'text' ? inlineToken(t, options) : block(t, options)))}
          </li>`,
      );
      return list.ordered
        ? html`<ol start=${typeof list.start === 'number' ? list.start : 1}>
            ${items}
          </ol>`
        : html`<ul>
            ${items}
          </ul>`;
    }
    case 'table': {
      const table = token as Tokens.Table;
      const align = (i: number) => table.align[i] ?? nothing;
      return html`<div class="table-wrap" ${scrollRegion(options.tableLabel)}>
        <table>
          <thead>
            <tr>
              ${table.header.map((cell, i) => html`<th align=${align(i)}>${inline(cell.tokens, options)}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${table.rows.map(
              (row) =>
                html`<tr>
                  ${row.map((cell, i) => html`<td align=${align(i)}>${inline(cell.tokens, options)}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`;
    }
    case 'hr':
      return html`<hr />`;
    case 'html':
      // Raw HTML from a model is shown as the text it is.
      return html`<p>${(token as Tokens.HTML).raw}</p>`;
    default:
      return 'raw' in token ? html`<p>${token.raw}</p>` : nothing;
  }
}

/** marked leaves entities of plain text encoded (`&amp;`); Lit escapes on its own, so undo marked's. */
export function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : "'",
  );
}

/** A text this long, rendered for the first time, shows its end first (`MarkdownCache.revealMore`). */
export const LONG_TEXT = 16_000;
/** About how much of a long text shows at first, and how much more each `revealMore`. */
export const TAIL_CHARS = 8_000;

/** A block of a text and where it starts there (its key: a block keeps its DOM as blocks are added above it). */
interface Block {
  start: number;
  template: ReturnType<typeof block>;
}

/**
 * Renders a growing text, re-lexing only from the start of its last block: the blocks
 * before it cannot change when text is appended.
 *
 * A long text seen whole for the first time (a page reloaded mid-answer) lexes and shows
 * its last blocks only, since the reader is at its end, and the text above them a piece
 * at a time as the element calls `revealMore`: lexing and laying out 50 KB at once costs
 * more than a frame, and none of it would be on screen.
 */
export class MarkdownCache {
  #text = '';
  /** The blocks of `#text` from `#shownFrom` on, all final but the last. */
  #blocks: Block[] = [];
  /** Where the shown text starts: the text above it is not lexed yet. */
  #shownFrom = 0;

  constructor(private readonly options: RenderOptions) {}

  /** True while the start of a long text is held back. */
  get partial(): boolean {
    return this.#shownFrom > 0;
  }

  render(text: string): unknown[] {
    const lex = lexer();
    if (!lex) return [plain(text)];
    if (text !== this.#text) this.#update(lex, text);
    return [
      repeat(
        this.#blocks,
        (b) => b.start,
        (b) => b.template,
      ),
    ];
  }

  /** Shows about `TAIL_CHARS` more of the held-back text (`partial` says whether some is left). */
  revealMore(): void {
    const lex = lexer();
    if (!lex || !this.partial) return;
    const from = blockStartBefore(this.#text, this.#shownFrom - TAIL_CHARS);
    this.#blocks.unshift(...this.#lex(lex, this.#text.slice(0, this.#shownFrom), from));
    this.#shownFrom = from;
  }

  #update(lex: Lex, text: string): void {
    // Seen whole for the first time: never a text that grew while the reader watched.
    if (!this.#text || !text.startsWith(this.#text)) {
      this.#blocks = [];
      this.#shownFrom = text.length > LONG_TEXT ? blockStartBefore(text, text.length - TAIL_CHARS) : 0;
    }
    const last = this.#blocks.pop();
    this.#blocks.push(...this.#lex(lex, text, last?.start ?? this.#shownFrom));
    this.#text = text;
  }

  /** The blocks of `text` from `from` (a block's start) on. */
  #lex(lex: Lex, text: string, from: number): Block[] {
    let start = from;
    return lex(text.slice(from)).map((token) => {
      const entry: Block = { start, template: block(token, this.options) };
      start += token.raw.length;
      return entry;
    });
  }
}

/** Renders a whole markdown text once (finished messages). */
export function renderMarkdown(text: string, options: RenderOptions): unknown[] {
  const lex = lexer();
  return lex ? lex(text).map((token) => block(token, options)) : [plain(text)];
}

/** A text before marked is there: as written, line breaks kept (`.plain`). */
const plain = (text: string): TemplateResult => html`<p class="plain">${text}</p>`;
