import { css } from 'lit';

/**
 * The connection line above the transcript, hidden while connected.
 */
export const statusLineStyles = css`
  .status {
    display: flex;
    gap: 0.5em;
    align-items: center;
    justify-content: center;
    padding: 4px var(--_space);
    font-size: 0.85em;
    color: var(--_muted);
    border-bottom: 1px solid var(--_border);
  }
  .status[hidden] {
    display: none;
  }
  .refused {
    color: var(--_danger);
  }
`;
