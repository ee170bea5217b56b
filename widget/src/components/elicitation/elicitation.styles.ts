import type { LitKit } from './lit-kit.js';

/**
 * The look of `<aalis-elicitation>`, in its own shadow root: an approval card's
 * warning-edged box (approval.styles.ts), with the fields of a form or the address of a
 * page. It reads the chat's private tokens (`--_*`), which its `:host` has too.
 */
export const elicitationStyles = (css: LitKit['css']) => css`
  :host {
    display: block;
    margin: 6px 0;
    border: 1px solid var(--_warning);
    border-left-width: 4px;
    background: var(--_card-bg);
    color: var(--_fg);
    border-radius: calc(var(--_radius) * 0.66);
    padding: 8px 10px;
    font-family: var(--_font);
    line-height: 1.5;
    cursor: auto;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  :focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  .card,
  form {
    display: flex;
    flex-direction: column;
    gap: 8px;
    min-width: 0;
    margin: 0;
  }
  .head {
    display: flex;
    flex-wrap: wrap;
    align-items: baseline;
    gap: 0.5em;
  }
  .who {
    font-weight: 600;
  }
  .expires {
    margin-left: auto;
    color: var(--_muted);
    font-size: 0.9em;
  }
  /* The MCP server's words, as it wrote them: its line breaks kept, long words broken. */
  .message {
    margin: 0;
    white-space: pre-line;
    overflow-wrap: anywhere;
  }
  .field {
    display: flex;
    flex-direction: column;
    gap: 2px;
    min-width: 0;
    margin: 0;
    padding: 0;
    border: 0;
  }
  .field.check {
    flex-flow: row wrap;
    align-items: center;
    gap: 2px 8px;
  }
  .field.check > p {
    flex-basis: 100%;
  }
  label,
  legend {
    font-weight: 500;
    overflow-wrap: anywhere;
  }
  legend {
    padding: 0;
    margin-bottom: 2px;
  }
  .choice {
    display: flex;
    align-items: center;
    gap: 8px;
    font-weight: normal;
  }
  .mark {
    color: var(--_danger);
    margin-left: 2px;
  }
  input:not([type='checkbox']),
  select {
    font: inherit;
    /* iOS zooms into a text box under 16px when it gets the focus. */
    font-size: max(16px, 1em);
    color: inherit;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: 8px;
    padding: 4px 8px;
    max-width: 100%;
  }
  input[type='checkbox'] {
    accent-color: var(--_accent);
    width: 18px;
    height: 18px;
    margin: 0;
  }
  @media (pointer: coarse) {
    input[type='checkbox'] {
      width: 24px;
      height: 24px;
    }
  }
  input[aria-invalid='true'],
  select[aria-invalid='true'] {
    border-color: var(--_danger);
  }
  .hint,
  .problem,
  .status,
  .note {
    margin: 0;
    font-size: 0.9em;
    color: var(--_muted);
  }
  .problem {
    color: var(--_danger);
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 6px;
  }
  button {
    font: inherit;
    border-radius: 8px;
    border: 1px solid var(--_border);
    background: var(--_bg);
    color: var(--_fg);
    padding: 4px 12px;
    cursor: pointer;
  }
  .submit,
  .open {
    background: var(--_accent);
    color: var(--_accent-fg);
    border-color: var(--_accent);
  }
  button:disabled {
    opacity: 0.5;
    cursor: not-allowed;
  }
  /* A page to visit: whose it is first, in bold; the whole address under it, small. */
  .page {
    display: flex;
    flex-direction: column;
    min-width: 0;
  }
  .host {
    font-size: 1.1em;
    overflow-wrap: anywhere;
  }
  .url {
    color: var(--_muted);
    font-family: var(--_mono);
    font-size: 0.85em;
    overflow-wrap: anywhere;
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;
