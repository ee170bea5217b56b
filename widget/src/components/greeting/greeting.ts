/**
 * What an empty conversation shows: the site owner's welcome (markdown) and starter
 * prompts, buttons that send their text. The words come from the element's attributes
 * or `<template>` children, else from the server's configuration (`ready`).
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Strings } from '../../i18n/strings.js';
import { renderMarkdown, type RenderOptions } from '../../markdown/render.js';

export interface Starter {
  /** What the button says. */
  label: string;
  /** What a click sends. */
  text: string;
}

export function renderGreeting(
  welcome: string,
  starters: readonly Starter[],
  context: { strings: Strings; markdown: RenderOptions },
  send: (text: string) => void,
): TemplateResult | typeof nothing {
  if (!welcome && !starters.length) return nothing;
  return html`<div class="greeting">
    ${welcome ? html`<div class="welcome" part="welcome">${renderMarkdown(welcome, context.markdown)}</div>` : nothing}
    ${
      starters.length
        ? html`<div class="starters" role="group" aria-label=${context.strings.starters}>
            ${starters.map(
              (starter) =>
                html`<button type="button" class="starter" part="starter" @click=${() => send(starter.text)}>
                  ${starter.label}
                </button>`,
            )}
          </div>`
        : nothing
    }
  </div>`;
}

/**
 * The `starters` attribute: a JSON array of strings, or of `{ label, text }`. Anything
 * else is none, rather than an exception in the page's console.
 */
export function parseStarters(value: string | null): Starter[] | undefined {
  if (!value) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.flatMap(starterOf) : undefined;
  } catch {
    return undefined;
  }
}

/** `<template>` children: each one a starter, its text sent, its `data-label` shown. */
export function templateStarters(host: Element): Starter[] {
  return [...host.querySelectorAll(':scope > template')].flatMap((template) => {
    const text = (template as HTMLTemplateElement).content.textContent?.trim() ?? '';
    const label = template.getAttribute('data-label')?.trim() || text;
    return text ? [{ label, text }] : [];
  });
}

function starterOf(value: unknown): Starter[] {
  if (typeof value === 'string') return value.trim() ? [{ label: value, text: value }] : [];
  const { label, text } = (value ?? {}) as { label?: unknown; text?: unknown };
  if (typeof text !== 'string' || !text.trim()) return [];
  return [{ label: typeof label === 'string' && label.trim() ? label : text, text }];
}
