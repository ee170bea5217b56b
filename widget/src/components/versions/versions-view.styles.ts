import type { ViewKit } from '../../shared/lazy-view.js';

/**
 * The `‹ 2 / 3 ›` switcher and the form that edits the last question. Made with the chat's
 * `css` (versions-view.ts is a file of its own).
 */
export const versionsViewStyles = (css: ViewKit['css']) => css`
  .versions {
    align-self: flex-start;
    display: flex;
    align-items: center;
    gap: 2px;
    color: var(--_muted);
    font-size: 0.85em;
    font-variant-numeric: tabular-nums;
  }
  .versions .action:disabled {
    opacity: 0.4;
    cursor: default;
  }
  .edit-form {
    align-self: flex-end;
    display: flex;
    flex-direction: column;
    gap: 6px;
    width: min(85%, 32em);
  }
  .edit-form textarea {
    padding: 8px 10px;
    resize: vertical;
  }
  .edit-buttons {
    display: flex;
    justify-content: flex-end;
    gap: 6px;
  }
  .edit-buttons button {
    font: inherit;
    border: 1px solid var(--_border);
    border-radius: 8px;
    padding: 4px 12px;
    background: none;
    color: inherit;
    cursor: pointer;
  }
  .edit-buttons .edit-save {
    border-color: var(--_accent);
    background: var(--_accent);
    color: var(--_accent-fg);
  }
`;
