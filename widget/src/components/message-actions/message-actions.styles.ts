import { css } from 'lit';

/**
 * The row under an answer (copy, thumbs, regenerate). The comment a thumb opens brings its
 * rules with it (feedback-form.styles.ts).
 */
export const messageActionsStyles = css`
  .actions {
    align-self: flex-start;
    display: flex;
    gap: 2px;
    margin-top: calc(var(--_space) * -0.5);
  }
`;
