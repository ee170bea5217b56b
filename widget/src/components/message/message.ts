/**
 * The transcript's bubbles: a user's message, a finished assistant message (with why it
 * did not complete, when it did not), a person's reply (a handoff), and the running turn
 * with its tool cards and its status line.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { progressList, type ChatMessage, type TurnView } from '@aalis/protocol/client';
import { shownStatus } from '../turn-status/turn-status.js';
import { errorText, type Strings } from '../../i18n/strings.js';
import { renderMessageImages } from '../attachments/attachments.js';
import { renderToolCards } from '../tool-card/tool-call-block.js';
import { renderParts, type PartContext } from './parts.js';

/** A message's text parts, joined: what a user wrote, or what a screen reader is told. */
export function plainText(message: ChatMessage): string {
  return message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** `imageUrl` is where an attached image is served (the server's `GET /images/<id>`). */
export function renderUserMessage(
  message: ChatMessage,
  strings: Strings,
  imageUrl: (id: string) => string,
): TemplateResult {
  const text = plainText(message);
  return html`<div class="bubble user" part="bubble bubble-user" data-id=${message.id}>
    ${renderMessageImages(message.images, strings, imageUrl)}
    ${text ? html`<span class="text">${text}</span>` : nothing}
  </div>`;
}

/**
 * A person's reply (a handoff): their name over their words, as plain text. No markdown: a
 * person types text, and what the model's answers look like must not be theirs.
 */
export function renderOperatorMessage(message: ChatMessage, strings: Strings): TemplateResult {
  return html`<div class="bubble operator" part="bubble bubble-operator" data-id=${message.id}>
    <span class="author">${message.author || strings.operator}</span>
    <span class="text">${plainText(message)}</span>
  </div>`;
}

export function renderAssistantMessage(message: ChatMessage, context: PartContext): TemplateResult {
  const { strings } = context;
  // Why it did not complete, when the server said (also in history); else what its status tells.
  const note = message.error
    ? errorText(strings, message.error)
    : message.status === 'aborted'
      ? strings.stopped
      : message.status === 'error'
        ? message.parts.length
          ? strings.failed
          : strings.interrupted
        : '';
  return html`<div
    class="bubble assistant"
    part="bubble bubble-assistant"
    data-id=${message.id}
    data-status=${message.status ?? 'complete'}
  >
    ${renderParts(message.parts, context)} ${note ? html`<div class="note">${note}</div>` : nothing}
  </div>`;
}

/**
 * The turn being written: its parts so far, the tool cards being written, the calls waiting for the
 * user's approval (`approvals`, their cards: ../approval/), and why nothing streams.
 */
export function renderTurn(turn: TurnView, context: PartContext, approvals: unknown): TemplateResult {
  const cards = renderToolCards(progressList(turn), context);
  // A timer: readable when a screen reader reaches it, but not read out on every tick
  // inside the log (aria-live="off"); the polite region says it once when it changes.
  const shown = shownStatus(turn);
  const status = shown
    ? html`<aalis-turn-status
        class="turn-status"
        part="turn-status"
        role="timer"
        aria-live="off"
        data-state=${shown.state}
        .status=${shown}
        .offset=${context.offset}
        .strings=${context.strings}
      ></aalis-turn-status>`
    : nothing;
  if (!turn.parts.length) {
    // Before the assistant's first words: the tool cards sit in the typing indicator's bubble.
    // An MCP server's request shows in the card of its call, a part: none comes before one.
    return html`<div class="bubble assistant typing-bubble" part="bubble typing">
      <span class="sr-only">${context.strings.typing}</span>
      ${turn.toolCallsProgress.size || turn.approvals.size ? [cards, approvals] : html`<span class="typing" aria-hidden="true"><span></span><span></span><span></span></span>`}
      ${status}
    </div>`;
  }
  // Not busy while it waits for the user (an approval, an MCP server's form or page in a
  // tool's card): a screen reader must let them reach the cards.
  return html`<div
    class="bubble assistant streaming"
    part="bubble bubble-assistant"
    aria-busy=${turn.approvals.size || turn.elicitations.size ? 'false' : 'true'}
  >
    ${renderParts(turn.parts, context)} ${cards} ${approvals} ${status}
  </div>`;
}
