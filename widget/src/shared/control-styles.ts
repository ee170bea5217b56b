import { css } from 'lit';

/**
 * Declarations several components' controls share, so that a button or a text box looks
 * the same wherever it sits. Each is a block of declarations to use inside a rule, but
 * for `targetSizes`, a stylesheet of its own.
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

/** Out of sight, still read by screen readers (`.sr-only`, a word beside an icon in a narrow space). */
export const visuallyHidden = css`
  position: absolute;
  width: 1px;
  height: 1px;
  overflow: hidden;
  clip: rect(0 0 0 0);
  white-space: nowrap;
`;

/**
 * Every control is a target of at least 24×24 CSS px (WCAG 2.5.8), and 44×44 under a
 * finger (`pointer: coarse`, where a 24 px arrow is missed more often than hit). One rule
 * for all, so that a control added later is covered without a thought. Its selectors weigh
 * nothing (`:where`), so a component's own minimum wins where it sets one; a smaller width
 * or height loses to these, as minimums do. A checkbox is no target here (only a task
 * list's, disabled), nor the file input (hidden behind its button).
 */
export const targetSizes = css`
  :where(button, summary, select, textarea, [role='button'], input:not([type='checkbox'], [type='file'])) {
    min-width: 24px;
    min-height: 24px;
  }
  @media (pointer: coarse) {
    :where(button, summary, select, textarea, [role='button'], input:not([type='checkbox'], [type='file'])) {
      min-width: 44px;
      min-height: 44px;
    }
  }
`;
