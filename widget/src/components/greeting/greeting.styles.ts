import { css } from 'lit';

/**
 * The welcome and the starter prompts of an empty conversation.
 */
export const greetingStyles = css`
  .greeting {
    display: flex;
    flex-direction: column;
    gap: var(--_space);
    margin: auto 0;
    text-align: center;
  }
  .starters {
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: 8px;
  }
  .starter {
    font: inherit;
    color: var(--_fg);
    background: var(--_card-bg);
    border: 1px solid var(--_border);
    border-radius: 999px;
    padding: 6px 14px;
    cursor: pointer;
  }
  .starter:hover {
    border-color: var(--_accent);
  }
`;
