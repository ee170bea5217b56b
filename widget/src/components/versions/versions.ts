/**
 * Versions of an exchange, as the visitor sees them: the switcher under a place that has
 * several ("‹ 2 / 3 ›"), the edit form of the last question, and its edit button. Which
 * version a tab shows is its own choice; the history keeps them all (protocol/versions.ts).
 * The switcher and the form are a file of their own (versions-view.ts), loaded when a
 * history first has either: most visitors never edit nor regenerate.
 */
import { html, type TemplateResult } from 'lit';
import type { Strings } from '../../i18n/strings.js';
import { editIcon } from '../../shared/icons.js';
import { LazyView } from '../../shared/lazy-view.js';

export const versionsView = new LazyView(() =>
  import('./versions-view.js').then((file) => file.versionsView),
);

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
