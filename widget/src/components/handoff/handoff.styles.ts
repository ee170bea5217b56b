import type { ViewKit } from '../../shared/lazy-view.js';

/**
 * The line over the composer, drawn only while it says something: empty, it takes no room,
 * and stays in the page for screen readers to hear its next words. Made with the chat's
 * `css` (handoff-view.ts is a file of its own).
 */
export const handoffStyles = (css: ViewKit['css']) => css`
  .handoff-notice.said {
    padding: 4px var(--_space);
    border-top: 1px solid var(--_border);
    color: var(--_muted);
    font-size: 0.85em;
    text-align: center;
  }
`;
