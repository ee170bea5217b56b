import { css } from 'lit';

/**
 * The edit button under the last question. The switcher and the edit form bring their
 * rules with them (versions-view.styles.ts).
 */
export const versionsStyles = css`
  .user-actions {
    align-self: flex-end;
  }
`;
