import { css } from 'lit';
import { accentButton } from '../../shared/control-styles.js';

/**
 * The row under an answer (copy, thumbs, regenerate) and the comment a thumb opens.
 */
export const messageActionsStyles = css`
  .actions {
    align-self: flex-start;
    display: flex;
    gap: 2px;
    margin-top: calc(var(--_space) * -0.5);
  }
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
