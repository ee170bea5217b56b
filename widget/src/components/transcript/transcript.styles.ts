import { css } from 'lit';

/**
 * The scrolling log: its centred column, the finished history, the errors of the turn
 * and the "jump to latest" button.
 */
export const transcriptStyles = css`
  .transcript {
    flex: 1;
    overflow-y: auto;
    padding: var(--_space);
    position: relative;
  }
  /* The finished messages, apart from the running turn: a card that ticks changes the
     turn's size, and the history keeps its layout (the column lays out two children,
     not every message, at each frame). */
  .history {
    display: flex;
    flex-direction: column;
    gap: var(--_space);
    contain: layout;
  }
  .column {
    max-width: var(--_max-width);
    margin: 0 auto;
    display: flex;
    flex-direction: column;
    gap: var(--_space);
  }
  .error {
    align-self: stretch;
    border: 1px solid var(--_danger);
    color: var(--_danger);
    border-radius: 8px;
    padding: 6px 10px;
    font-size: 0.9em;
  }
  .jump {
    position: sticky;
    bottom: 0;
    margin: 0 auto;
    display: block;
  }
`;
