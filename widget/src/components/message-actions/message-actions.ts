/**
 * The actions under a finished answer: copy its markdown, and thumbs up or down. A thumb
 * opens a one-line comment form (optional, Enter sends, Escape closes). Which thumb is
 * pressed is the answer's stored `feedback`, as every tab of the session has it.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { Limits, type ChatMessage } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { onEscape } from '../../shared/escape.js';
import { copyIcon, regenerateIcon, thumbDownIcon, thumbUpIcon } from '../../shared/icons.js';

export interface ActionsState {
  strings: Strings;
  /** The answer whose comment form is open, if any. */
  commenting: string | undefined;
  /** The answer whose copy button says "Copied" for a moment. */
  copied: string | undefined;
  /** This is the last answer and no turn runs: it can be regenerated. */
  regenerable: boolean;
}

export interface ActionHandlers {
  copy(message: ChatMessage): void;
  rate(message: ChatMessage, rating: 'up' | 'down'): void;
  comment(message: ChatMessage, text: string): void;
  closeComment(): void;
  regenerate(message: ChatMessage): void;
}

export function renderMessageActions(
  message: ChatMessage,
  { strings, commenting, copied, regenerable }: ActionsState,
  on: ActionHandlers,
): TemplateResult {
  const rating = message.feedback?.rating;
  const thumb = (value: 'up' | 'down', label: string, icon: unknown) =>
    html`<button
      type="button"
      class="action ${value}"
      part="action-${value}"
      aria-label=${label}
      title=${label}
      aria-pressed=${rating === value ? 'true' : 'false'}
      @click=${() => on.rate(message, value)}
    >
      ${icon}
    </button>`;
  return html`<div class="actions" part="message-actions" data-for=${message.id}>
      <button
        type="button"
        class="action copy"
        part="action-copy"
        aria-label=${strings.copyAnswer}
        title=${strings.copyAnswer}
        @click=${() => on.copy(message)}
      >
        ${copyIcon}${copied === message.id ? html`<span>${strings.copied}</span>` : nothing}
      </button>
      ${thumb('up', strings.goodAnswer, thumbUpIcon)} ${thumb('down', strings.badAnswer, thumbDownIcon)}
      ${
        regenerable
          ? html`<button
              type="button"
              class="action regenerate"
              part="action-regenerate"
              aria-label=${strings.regenerate}
              title=${strings.regenerate}
              @click=${() => on.regenerate(message)}
            >
              ${regenerateIcon}
            </button>`
          : nothing
      }
    </div>
    ${commenting === message.id ? renderCommentForm(message, strings, on) : nothing}`;
}

function renderCommentForm(message: ChatMessage, strings: Strings, on: ActionHandlers): TemplateResult {
  const submit = (event: Event) => {
    event.preventDefault();
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('comment') as HTMLInputElement;
    on.comment(message, input.value);
  };
  return html`<form
    class="feedback-form"
    part="feedback-form"
    @submit=${submit}
    @keydown=${onEscape(on.closeComment)}
  >
    <input
      name="comment"
      maxlength=${Limits.feedbackComment}
      aria-label=${strings.feedbackComment}
      placeholder=${strings.feedbackComment}
      .value=${message.feedback?.comment ?? ''}
    />
    <button type="submit">${strings.send}</button>
  </form>`;
}
