/**
 * The composer: the text box, send (or stop, while a turn runs), the images attached
 * (pasted, dropped or picked), the notice line and the length counter. A render module: the element owns the draft and passes its handlers.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { Limits } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { sendIcon, stopIcon } from '../../shared/icons.js';
import { fitToPlaceholder } from './fit-to-text.js';

export interface ComposerState {
  strings: Strings;
  draft: string;
  /** A turn is running: the button stops it instead of sending. */
  running: boolean;
  /** Stop was pressed and the turn has not ended yet: the button says it is stopping. */
  stopping: boolean;
  /** Why the last message could not be sent, or what was refused. */
  notice: string;
  placeholder: string;
  /** Images offered by the server: the attach button, and what is attached so far. */
  attach: unknown;
  attachments: unknown;
  /** Images go with the next question: it may be sent without text. */
  hasAttachments: boolean;
  /** Files are being dragged over the composer. */
  dragging: boolean;
}

export interface ComposerHandlers {
  input(event: Event): void;
  keydown(event: KeyboardEvent): void;
  compositionstart(): void;
  compositionend(): void;
  send(): void;
  stop(): void;
  paste(event: ClipboardEvent): void;
  dragover(event: DragEvent): void;
  dragleave(event: DragEvent): void;
  drop(event: DragEvent): void;
}

/** The counter appears from this share of the limit on. */
const COUNTER_FROM = 0.8;

export function renderComposer(state: ComposerState, on: ComposerHandlers): TemplateResult {
  const {
    strings,
    draft,
    running,
    stopping,
    notice,
    placeholder,
    attach,
    attachments,
    hasAttachments,
    dragging,
  } = state;
  const length = draft.trim().length;
  const over = length > Limits.messageText;
  return html`<div
    class="composer ${dragging ? 'dragging' : ''}"
    part="composer"
    data-drop-label=${strings.dropImages}
    @dragover=${on.dragover}
    @dragleave=${on.dragleave}
    @drop=${on.drop}
  >
    ${attachments}
    <div class="composer-row">
      ${attach}
      <textarea
        rows="1"
        aria-label=${strings.composerLabel}
        placeholder=${placeholder}
        ${fitToPlaceholder(placeholder)}
        .value=${live(draft)}
        @input=${on.input}
        @keydown=${on.keydown}
        @compositionstart=${on.compositionstart}
        @compositionend=${on.compositionend}
        @paste=${on.paste}
      ></textarea>
      ${
        running
          ? html`<button
              type="button"
              class="stop"
              part="stop-button"
              data-state=${stopping ? 'stopping' : nothing}
              @click=${on.stop}
            >
              ${stopIcon}<span>${stopping ? strings.stopping : strings.stop}</span>
            </button>`
          : html`<button
              type="button"
              class="send"
              part="send-button"
              ?disabled=${(!length && !hasAttachments) || over}
              @click=${on.send}
            >
              ${sendIcon}<span>${strings.send}</span>
            </button>`
      }
    </div>
    <div class="composer-info">
      <span class="notice" role="status">${notice}</span>
      ${
        length > Limits.messageText * COUNTER_FROM
          ? html`<span class="counter ${over ? 'over' : ''}"
              >${strings.tooLong(length, Limits.messageText)}</span
            >`
          : nothing
      }
    </div>
  </div>`;
}
