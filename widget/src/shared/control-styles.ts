import { css } from 'lit';

/**
 * Declarations several components' controls share, so that a button or a text box looks
 * the same wherever it sits. Each is a block of declarations to use inside a rule.
 */

/** A filled button in the accent colour (new conversation, send feedback). */
export const accentButton = css`
  font: inherit;
  border: 0;
  border-radius: 8px;
  padding: 4px 12px;
  background: var(--_accent);
  color: var(--_accent-fg);
  cursor: pointer;
`;

/** A text box's type and surface (the composer, the edit box). */
export const textBox = css`
  font: inherit;
  /* iOS zooms into a text box under 16px when it gets the focus. */
  font-size: max(16px, 1em);
  color: inherit;
  background: transparent;
  border-radius: 8px;
`;
