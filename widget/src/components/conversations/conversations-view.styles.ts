import type { CSSResult } from 'lit';
import type { ViewKit } from '../../shared/lazy-view.js';

/**
 * The visitor's conversations: open, rename, delete (asked twice). Made with the chat's `css`
 * and its filled button's declarations (conversations-view.ts is a file of its own).
 */
export const conversationsViewStyles = (css: ViewKit['css'], accentButton: CSSResult) => css`
  .conversations {
    flex: 1;
    overflow-y: auto;
    padding: var(--_space);
  }
  .conversations-head {
    display: flex;
    justify-content: space-between;
    align-items: center;
    margin-bottom: var(--_space);
  }
  .new-conversation {
    ${accentButton}
  }
  .conversations ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .conversations li {
    display: flex;
    align-items: center;
    gap: 2px;
    border-bottom: 1px solid var(--_border);
  }
  .open-conversation {
    flex: 1;
    min-width: 0;
    display: flex;
    flex-direction: column;
    align-items: flex-start;
    padding: 8px 4px;
    border: 0;
    background: none;
    color: inherit;
    font: inherit;
    text-align: start;
    cursor: pointer;
  }
  .open-conversation[aria-current='true'] .conversation-title {
    font-weight: 600;
  }
  .conversation-title {
    max-width: 100%;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .conversation-time {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .action.delete.confirm {
    color: var(--_danger);
  }
  .rename-form {
    flex: 1;
    display: flex;
    gap: 6px;
    padding: 6px 0;
  }
`;
