/**
 * The comment a thumb opens under an answer: one line, optional, Enter sends, Escape closes.
 * A file of its own (`aalis-chat-feedback-form.js`), loaded the first time a visitor rates
 * an answer here (message-actions.ts): most never do. It borrows the chat's Lit and helpers
 * (../../shared/lazy-view.ts): it imports nothing at run time.
 */
import type { TemplateResult } from 'lit';
import type { ChatMessage } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import type { ViewKit } from '../../shared/lazy-view.js';
import { feedbackFormStyles } from './feedback-form.styles.js';

/** What the form does: sends its comment and closes (an empty one only closes), or closes. */
export interface FeedbackHandlers {
  comment(message: ChatMessage, text: string): void;
  closeComment(): void;
}

export function feedbackForm({ html, css, Limits, onEscape, accentButton }: ViewKit) {
  return {
    styles: feedbackFormStyles(css, accentButton),

    render(message: ChatMessage, strings: Strings, on: FeedbackHandlers): TemplateResult {
      const submit = (event: Event) => {
        event.preventDefault();
        const input = (event.currentTarget as HTMLFormElement).elements.namedItem(
          'comment',
        ) as HTMLInputElement;
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
    },
  };
}

export type FeedbackForm = ReturnType<typeof feedbackForm>;
