/**
 * Launcher mode's frame around the chat: the round button (`part="launcher"`), with its
 * unread dot, and the panel (`part="panel"`, a labelled dialog, with its close button,
 * `part="close-button"`) that holds the chat once it was first opened. Below 480 px wide the panel takes the whole screen (styles).
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Strings } from '../../i18n/strings.js';
import { chatIcon, closeIcon } from '../../shared/icons.js';

export interface LauncherState {
  strings: Strings;
  title: string;
  open: boolean;
  built: boolean;
  unread: boolean;
}

export interface LauncherHandlers {
  toggle(): void;
  close(): void;
  keydown(event: KeyboardEvent): void;
}

export function renderLauncher(
  { strings, title, open, built, unread }: LauncherState,
  chat: () => unknown,
  on: LauncherHandlers,
): TemplateResult {
  return html`${
      built
        ? html`<div
            class="panel"
            part="panel"
            id="panel"
            role="dialog"
            aria-modal="true"
            aria-labelledby="panel-title"
            ?hidden=${!open}
            @keydown=${on.keydown}
          >
            <div class="panel-head">
              <h2 id="panel-title">${title}</h2>
              <button
                type="button"
                class="panel-close"
                part="close-button"
                aria-label=${strings.close}
                @click=${on.close}
              >
                ${closeIcon}
              </button>
            </div>
            ${chat()}
          </div>`
        : nothing
    }
    <button
      type="button"
      class="launcher"
      part="launcher"
      aria-label=${unread ? `${title} (${strings.unread})` : title}
      aria-expanded=${open ? 'true' : 'false'}
      aria-controls=${built ? 'panel' : nothing}
      aria-haspopup="dialog"
      @click=${on.toggle}
      @keydown=${on.keydown}
    >
      ${open ? closeIcon : chatIcon}
      ${unread ? html`<span class="unread" part="unread-dot"></span>` : nothing}
    </button>`;
}
