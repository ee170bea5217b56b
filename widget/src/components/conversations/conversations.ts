/**
 * The toolbar over the transcript, and the visitor's conversations in place of the
 * transcript. The list itself (conversations-view.ts) is a file of its own, loaded the first
 * time a visitor opens it: only a visitor the server knows has one, and few open it.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Strings } from '../../i18n/strings.js';
import { LazyView, type ViewHost } from '../../shared/lazy-view.js';
import type { ConversationHandlers, ConversationsState } from './conversations-view.js';

export const conversationsView = new LazyView(() =>
  import('./conversations-view.js').then((file) => file.conversationsView),
);

/** The list, once its file has come (until then the chat shows the toolbar alone). */
export const renderConversations = (
  host: ViewHost,
  state: ConversationsState,
  on: ConversationHandlers,
): unknown => conversationsView.in(host)?.render(state, on) ?? nothing;

/**
 * The row above the transcript: "Talk to a person" where the site offers one (`person`,
 * ../handoff/), and the conversations button for a visitor the server knows (`list`). No
 * row for neither.
 */
export function renderToolbar(
  strings: Strings,
  person: unknown,
  list: { shown: boolean; toggle(): void } | undefined,
): TemplateResult | typeof nothing {
  if (person === nothing && !list) return nothing;
  return html`<div class="toolbar" part="toolbar">
    ${person}
    ${
      list
        ? html`<button
            type="button"
            class="action conversations-button"
            part="conversations-button"
            aria-expanded=${list.shown ? 'true' : 'false'}
            @click=${list.toggle}
          >
            ${strings.conversations}
          </button>`
        : nothing
    }
  </div>`;
}
