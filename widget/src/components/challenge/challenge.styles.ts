import { css } from 'lit';

/**
 * The bot check above the composer: a calm line (never the danger colour: the visitor did
 * nothing wrong) and the provider's widget, centred.
 */
export const challengeStyles = css`
  .challenge {
    display: grid;
    justify-items: center;
    padding: 8px;
    border-top: 1px solid var(--_border);
    font-size: 0.85em;
    color: var(--_muted);
  }
  .challenge p {
    margin: 0 0 6px;
    text-align: center;
  }
`;
