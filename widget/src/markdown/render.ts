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
import type { Token, Tokens } from 'marked';
import { lexer } from './lexer.js';

export interface RenderOptions {
  copyLabel: string;
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
      return html`<div class="table-wrap">
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

/**
 * Renders a growing text, re-lexing only from the start of its last block: the blocks
 * before it cannot change when text is appended.
 */
export class MarkdownCache {
  #text = '';
  #stable: Array<TemplateResult | typeof nothing | string> = [];
  /** Where the last (still changing) block starts in `#text`. */
  #tailStart = 0;
  #tail: Array<TemplateResult | typeof nothing | string> = [];

  constructor(private readonly options: RenderOptions) {}

  render(text: string): unknown[] {
    const lex = lexer();
    if (!lex) return [plain(text)];
    if (text === this.#text) return [...this.#stable, ...this.#tail];
    const appended = text.startsWith(this.#text);
    if (!appended) {
      this.#stable = [];
      this.#tailStart = 0;
    }
    const tokens = lex(text.slice(this.#tailStart));
    // All but the last block are final now.
    let offset = this.#tailStart;
    for (const token of tokens.slice(0, -1)) {
      this.#stable.push(block(token, this.options));
      offset += token.raw.length;
    }
    const last = tokens.at(-1);
    this.#tailStart = offset;
    this.#tail = last ? [block(last, this.options)] : [];
    this.#text = text;
    return [...this.#stable, ...this.#tail];
  }
}

/** Renders a whole markdown text once (finished messages). */
export function renderMarkdown(text: string, options: RenderOptions): unknown[] {
  const lex = lexer();
  return lex ? lex(text).map((token) => block(token, options)) : [plain(text)];
}

/** A text before marked is there: as written, line breaks kept (`.plain`). */
const plain = (text: string): TemplateResult => html`<p class="plain">${text}</p>`;
