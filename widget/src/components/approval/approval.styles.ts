import type { ViewKit } from '../../shared/lazy-view.js';

/**
 * A tool call waiting for the visitor's approval: the warning-edged card and its buttons.
 * Made with the chat's `css` (approval-cards.ts is a file of its own).
 */
export const approvalStyles = (css: ViewKit['css']) => css`
  .approval-card {
    border: 1px solid var(--_warning);
    border-left-width: 4px;
    background: var(--_card-bg);
    border-radius: calc(var(--_radius) * 0.66);
    padding: 8px 10px;
    font-size: 0.92em;
    display: flex;
    flex-direction: column;
    gap: 6px;
    min-width: 0;
  }
  .approval-head {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5em;
  }
  .approval-head .tool-icon {
    display: inline-flex;
    color: var(--_warning);
  }
  .approval-title {
    font-weight: 600;
  }
  .approval-expires {
    margin-left: auto;
    color: var(--_muted);
    font-size: 0.9em;
  }
  .approval-card pre {
    max-height: 12em;
    overflow: auto;
    padding: 4px 6px;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: 6px;
  }
  .approval-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
  }
  .approval-card .approve-button {
    background: var(--_accent);
    color: var(--_accent-fg);
    border-color: var(--_accent);
  }
  .approval-card button:disabled {
    opacity: 0.5;
    cursor: not-allowed;
  }
  .approval-card pre {
    font-family: var(--_mono);
    font-size: 0.9em;
    overflow-x: auto;
    margin: 4px 0;
    white-space: pre-wrap;
  }
`;
