import { css } from 'lit';

/**
 * The line over the composer, drawn only while it says something: empty, it takes no room,
 * and stays in the page for screen readers to hear its next words.
 */
export const handoffStyles = css`
  .handoff-notice.said {
    padding: 4px var(--_space);
    border-top: 1px solid var(--_border);
    color: var(--_muted);
    font-size: 0.85em;
    text-align: center;
  }
`;
