/**
 * The open conversation's side of a person answering (PROTOCOL.md section 8), shown where
 * the server lets one answer. At the top, where the conversation stands (the model
 * answers; a person is waited for, since when and why; who answers), "Give back to the
 * assistant" while a person is asked for or answers, and how the live view is. At the
 * bottom, the reply box: the reply, the name it goes out under, and its errors.
 */
import { html, nothing, type TemplateResult } from 'lit';
// Checked against the field's own value: the owner types between renders.
import { live as fieldValue } from 'lit/directives/live.js';
import type { ConversationLive } from './conversation-live.js';
import { formatDateTime } from './days.js';
import { MAX_OPERATOR_NAME, type OperatorDesk } from './operator-desk.js';

export interface HandoffHandlers {
  draft(text: string): void;
  name(name: string): void;
  send(): void;
  release(): void;
  reconnect(): void;
}

/** What the owner needs of a handoff: the live view, the reply box's state, the handlers. */
export interface HandoffPanel {
  live: ConversationLive;
  desk: OperatorDesk;
  on: HandoffHandlers;
}

export function renderHandoffState({ live, desk, on }: HandoffPanel): TemplateResult {
  const handoff = live.ready ? live.view.handoff : undefined;
  return html`<div
    class="handoff-state"
    part="handoff-state"
    data-state=${live.ready ? (handoff?.state ?? 'off') : 'unknown'}
  >
    <p class="handoff-line" role="status">${handoffText(live)}</p>
    ${
      handoff
        ? html`<button type="button" class="release" @click=${on.release}>
            ${desk.busy === 'releasing' ? 'Giving back…' : 'Give back to the assistant'}
          </button>`
        : nothing
    }
    <p class="note notice live-note" role="status">${liveText(live)}</p>
    ${
      live.state === 'stopped'
        ? html`<button type="button" class="reconnect" @click=${on.reconnect}>Reconnect</button>`
        : nothing
    }
  </div>`;
}

function handoffText(live: ConversationLive): string {
  if (!live.ready) return '';
  const handoff = live.view.handoff;
  if (!handoff) return 'The assistant answers. A reply from you takes the conversation over.';
  const since = formatDateTime(handoff.since);
  if (handoff.state === 'active') return `Answered by ${handoff.operator ?? 'a person'} since ${since}.`;
  return `Waiting for a person since ${since}${handoff.reason ? `, reason: ${handoff.reason}` : ''}.`;
}

function liveText(live: ConversationLive): string {
  switch (live.state) {
    case 'connecting':
      return 'Connecting to the live conversation…';
    case 'reconnecting':
      return 'The live view was cut: reconnecting…';
    case 'stopped':
      return 'The live view stopped: new messages show once it is reconnected.';
    default:
      return '';
  }
}

export function renderReplyBox({ desk, on }: HandoffPanel): TemplateResult {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    on.send();
  };
  // Enter alone is a new line (a reply may have several); Ctrl+Enter (⌘ on a Mac) sends.
  const keydown = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
    event.preventDefault();
    on.send();
  };
  const name = desk.name.trim();
  return html`<form class="reply" part="reply" aria-labelledby="reply-label" @submit=${submit}>
    <label id="reply-label" for="reply-text">Reply to the visitor as a person</label>
    <textarea
      id="reply-text"
      name="text"
      rows="3"
      .value=${fieldValue(desk.draft)}
      aria-describedby="reply-hint reply-error"
      @input=${(event: InputEvent) => on.draft((event.currentTarget as HTMLTextAreaElement).value)}
      @keydown=${keydown}
    ></textarea>
    <p id="reply-hint" class="note">
      Ctrl+Enter sends. The visitor sees it at once, and the assistant stays quiet until you give the
      conversation back.
    </p>
    <div class="reply-actions">
      <label class="field">
        <span>Your name, as the visitor sees it</span>
        <input
          id="operator-name"
          name="operator"
          autocomplete="off"
          maxlength=${MAX_OPERATOR_NAME}
          .value=${fieldValue(desk.name)}
          @input=${(event: InputEvent) => on.name((event.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" class="primary send-reply">
        ${desk.busy === 'sending' ? 'Sending…' : name ? `Send as ${name}` : 'Send'}
      </button>
    </div>
    <p id="reply-error" class="error" role="alert">${desk.error}</p>
  </form>`;
}
