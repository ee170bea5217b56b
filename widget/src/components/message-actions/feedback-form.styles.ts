import type { CSSResult } from 'lit';
import type { ViewKit } from '../../shared/lazy-view.js';

/**
 * The comment a thumb opens, its button filled in the accent colour. Made with the chat's
 * `css` and its filled button's declarations (feedback-form.ts is a file of its own).
 */
export const feedbackFormStyles = (css: ViewKit['css'], accentButton: CSSResult) => css`
  .feedback-form {
    align-self: flex-start;
    display: flex;
    gap: 6px;
    width: min(100%, 28em);
  }
  .feedback-form input {
    border-color: var(--_border);
  }
  .feedback-form button {
    ${accentButton}
  }
`;
