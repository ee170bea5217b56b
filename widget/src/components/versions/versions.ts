/**
 * Versions of an exchange, as the visitor sees them: the switcher under a place that has
 * several ("‹ 2 / 3 ›"), the edit form of the last question, and its edit button. Which
 * version a tab shows is its own choice; the history keeps them all (protocol/versions.ts).
 */
import { plainText } from '../message/message.js';
import { html, type TemplateResult } from 'lit';
import type { ChatMessage } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { onEscape } from '../../shared/escape.js';
import { editIcon } from '../../shared/icons.js';
import { enterSubmits } from '../../shared/keys.js';

export function renderSwitcher(
  shown: number,
  count: number,
  { strings, locked }: { strings: Strings; locked: boolean },
  show: (index: number) => void,
): TemplateResult {
  return html`<div class="versions" part="versions" role="group" aria-label=${strings.versions}>
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
  </div>`;
}

export function renderEditButton(strings: Strings, edit: () => void): TemplateResult {
  return html`<div class="actions user-actions">
    <button
      type="button"
      class="action edit"
      part="action-edit"
      aria-label=${strings.edit}
      title=${strings.edit}
      @click=${edit}
    >
      ${editIcon}
    </button>
  </div>`;
}

/**
 * The last question as a form: Save (or Enter, as in the composer; Shift+Enter is a new
 * line) sends it again, edited; Cancel or Escape leaves it.
 */
export function renderEditForm(
  message: ChatMessage,
  strings: Strings,
  on: { save(text: string): void; cancel(): void },
): TemplateResult {
  const text = plainText(message);
  const submit = (event: Event) => {
    event.preventDefault();
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem('text') as HTMLTextAreaElement;
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
}
