import { css } from 'lit';
import { textBox } from '../shared/control-styles.js';

/**
 * The handoff's line at the top of the transcript (marked while a person is waited for,
 * the warning colour of the list's badge), the answer being written, and the reply box
 * at the bottom, under the messages as in a chat.
 */
export const handoffPanelStyles = css`
  .handoff-state {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: calc(var(--_gap) * 0.5) var(--_gap);
    padding: calc(var(--_gap) * 0.5) var(--_gap);
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.66);
  }
  .handoff-state[data-state='waiting'] {
    border-color: var(--_warning);
  }
  .handoff-state[data-state='active'] {
    border-color: var(--_accent);
  }
  .handoff-line {
    flex: 1 1 16em;
    margin: 0;
  }
  .handoff-line:empty {
    display: none;
  }
  .handoff-state[data-state='waiting'] .handoff-line,
  .handoff-state[data-state='active'] .handoff-line {
    font-weight: 600;
  }
  .live-note {
    flex-basis: 100%;
    font-size: 0.85em;
  }
  .message.writing .bubble {
    opacity: 0.85;
  }
  .reply {
    display: flex;
    flex-direction: column;
    gap: calc(var(--_gap) * 0.5);
    padding-top: var(--_gap);
    border-top: 1px solid var(--_border);
  }
  .reply > label {
    font-weight: 600;
  }
  .reply textarea {
    ${textBox}
    font-size: max(16px, 1rem);
    width: 100%;
    min-height: 4.5em;
    resize: vertical;
    padding: 6px 8px;
    border: 1px solid var(--_border);
    background: var(--_bg);
    color: var(--_fg);
  }
  .reply .note {
    font-size: 0.85em;
  }
  .reply-actions {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    justify-content: space-between;
    gap: calc(var(--_gap) * 0.5);
  }
  .reply-actions .field {
    flex: 0 1 16em;
  }
`;
