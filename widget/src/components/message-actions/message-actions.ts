/**
 * The actions under a finished answer: copy its markdown, and thumbs up or down. A thumb
 * opens a one-line comment form (optional, Enter sends, Escape closes), a file of its own
 * (feedback-form.ts) loaded the first time it opens. Which thumb is pressed is the answer's
 * stored `feedback`, as every tab of the session has it.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { ChatMessage } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { copyIcon, regenerateIcon, thumbDownIcon, thumbUpIcon } from '../../shared/icons.js';
import { LazyView } from '../../shared/lazy-view.js';
import type { FeedbackForm, FeedbackHandlers } from './feedback-form.js';

export const feedbackForm = new LazyView(() =>
  import('./feedback-form.js').then((file) => file.feedbackForm),
);

export interface ActionsState {
  strings: Strings;
  /** The answer whose comment form is open, if any. */
  commenting: string | undefined;
  /** The answer whose copy button says "Copied" for a moment. */
  copied: string | undefined;
  /** This is the last answer and no turn runs: it can be regenerated. */
  regenerable: boolean;
  /** The comment form, where one is open and its file has come (`feedbackForm`). */
  form?: FeedbackForm | undefined;
}

export interface ActionHandlers extends FeedbackHandlers {
  copy(message: ChatMessage): void;
  rate(message: ChatMessage, rating: 'up' | 'down'): void;
  regenerate(message: ChatMessage): void;
}

export function renderMessageActions(
  message: ChatMessage,
  { strings, commenting, copied, regenerable, form }: ActionsState,
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
    ${commenting === message.id && form ? form.render(message, strings, on) : nothing}`;
}
