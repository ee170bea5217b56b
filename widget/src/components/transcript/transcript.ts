/**
 * The scrolling log (`role="log"`): "load older", the finished history, the greeting of
 * an empty conversation, the running turn, the turn's errors, and "jump to latest" when
 * the reader scrolled up. The pieces come rendered; this lays them out.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { MessageError } from '@aalis/protocol/client';
import { errorText, type Strings } from '../../i18n/strings.js';

export interface TranscriptState {
  strings: Strings;
  /** The server has older messages than the first shown. */
  hasMore: boolean;
  history: unknown;
  greeting: unknown;
  turn: unknown;
  errors: readonly MessageError[];
  /** The log follows new output; else the jump button shows. */
  stuck: boolean;
}

export interface TranscriptHandlers {
  scroll(): void;
  loadOlder(): void;
  jump(): void;
}

export function renderTranscript(
  { strings, hasMore, history, greeting, turn, errors, stuck }: TranscriptState,
  on: TranscriptHandlers,
): TemplateResult {
  return html`<div
    class="transcript"
    part="transcript"
    role="log"
    aria-label=${strings.transcriptLabel}
    tabindex="0"
    @scroll=${on.scroll}
  >
    <div class="column">
      ${
        hasMore
          ? html`<button type="button" class="older" @click=${on.loadOlder}>${strings.loadOlder}</button>`
          : nothing
      }
      ${history === nothing ? nothing : html`<div class="history">${history}</div>`} ${greeting} ${turn}
      ${errors.map(
        (e) =>
          html`<div class="error" role="alert" data-code=${e.code}>
            ${strings.errorTitle}: ${errorText(strings, e)}
          </div>`,
      )}
    </div>
    ${
      stuck
        ? nothing
        : html`<button type="button" class="jump" part="jump-button" @click=${on.jump}>
            ${strings.jumpToLatest}
          </button>`
    }
  </div>`;
}
