import { css } from 'lit';

/**
 * The turn's status line (`<aalis-turn-status>`), as its host sits in the bubble: plain
 * text in its shadow root, so its colour and size come from here.
 */
export const turnStatusStyles = css`
  .turn-status {
    color: var(--_muted);
    font-size: 0.9em;
    font-variant-numeric: tabular-nums;
  }
  .turn-status[data-state='retrying'],
  .turn-status[data-state='saving'],
  .turn-status[data-state='unresponsive'] {
    color: var(--_warning);
  }
`;
