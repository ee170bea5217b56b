/**
 * The versions of an exchange a visitor may never make: the switcher under a place that has
 * several ("‹ 2 / 3 ›"), and the form that edits the last question. A file of its own
 * (`aalis-chat-versions-view.js`), loaded the first time a history shows either
 * (versions.ts). It borrows the chat's Lit and helpers (../../shared/lazy-view.ts): it
 * imports nothing at run time.
 */
import type { TemplateResult } from 'lit';
import type { Strings } from '../../i18n/strings.js';
import type { ViewKit } from '../../shared/lazy-view.js';
import { versionsViewStyles } from './versions-view.styles.js';

export function versionsView({ html, css, onEscape, enterSubmits }: ViewKit) {
  return {
    styles: versionsViewStyles(css),

    switcher: (
      shown: number,
      count: number,
      { strings, locked }: { strings: Strings; locked: boolean },
      show: (index: number) => void,
    ): TemplateResult =>
      html`<div class="versions" part="versions" role="group" aria-label=${strings.versions}>
        <button
          type="button"
          class="action"
          aria-label=${strings.previousVersion}
          ?disabled=${locked || shown === 0}
          @click=${() => show(shown - 1)}
        >
          ‹
        </button>
        <span class="version-count">${shown + 1} / ${count}</span>
        <button
          type="button"
          class="action"
          aria-label=${strings.nextVersion}
          ?disabled=${locked || shown === count - 1}
          @click=${() => show(shown + 1)}
        >
          ›
        </button>
      </div>`,

    /**
     * The last question (its words, `text`) as a form: Save (or Enter, as in the composer;
     * Shift+Enter is a new line) sends it again, edited; Cancel or Escape leaves it.
     */
    editForm(
      text: string,
      strings: Strings,
      on: { save(text: string): void; cancel(): void },
    ): TemplateResult {
      const submit = (event: Event) => {
        event.preventDefault();
        const field = (event.currentTarget as HTMLFormElement).elements.namedItem(
          'text',
        ) as HTMLTextAreaElement;
        if (field.value.trim()) on.save(field.value.trim());
      };
      return html`<form class="edit-form" part="edit-form" @submit=${submit} @keydown=${onEscape(on.cancel)}>
        <textarea
          name="text"
          rows="3"
          aria-label=${strings.edit}
          .value=${text}
          @keydown=${enterSubmits.keydown}
          @compositionstart=${enterSubmits.compositionstart}
          @compositionend=${enterSubmits.compositionend}
        ></textarea>
        <div class="edit-buttons">
          <button type="button" class="edit-cancel" @click=${on.cancel}>${strings.cancel}</button>
          <button type="submit" class="edit-save">${strings.saveAndSend}</button>
        </div>
      </form>`;
    },
  };
}

export type VersionsView = ReturnType<typeof versionsView>;
