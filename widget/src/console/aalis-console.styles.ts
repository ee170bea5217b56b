import { css } from 'lit';
import { accentButton, textBox, visuallyHidden } from '../shared/control-styles.js';

/**
 * The console's frame and the controls every part shares: the header, the login form,
 * buttons, fields, notes and errors, and a focus ring on everything reachable by Tab.
 * The list and the transcript sit side by side on a wide screen, one under the other on
 * a narrow one.
 */
export const consoleStyles = css`
  :host {
    display: block;
    box-sizing: border-box;
    min-height: 100vh;
    font-family: var(--_font);
    font-size: var(--_size);
    line-height: 1.45;
    color: var(--_fg);
    background: var(--_bg);
    --_gap: var(--_space);
  }
  *,
  *::before,
  *::after {
    box-sizing: inherit;
  }
  [hidden] {
    display: none !important;
  }
  h1,
  h2 {
    margin: 0;
    line-height: 1.2;
  }
  h1 {
    font-size: 1.3em;
  }
  h2 {
    font-size: 1.1em;
  }
  code {
    font-family: var(--_mono);
    font-size: 0.92em;
    overflow-wrap: anywhere;
  }
  .sr-only {
    ${visuallyHidden}
  }
  :focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  [tabindex='-1']:focus {
    outline: none;
  }

  .top {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: var(--_gap);
    padding: var(--_gap) calc(var(--_gap) * 1.5);
    border-bottom: 1px solid var(--_border);
  }
  main {
    display: flex;
    flex-direction: column;
    gap: calc(var(--_gap) * 1.5);
    padding: calc(var(--_gap) * 1.5);
    max-width: 1400px;
    margin: 0 auto;
  }
  .workspace {
    display: grid;
    grid-template-columns: minmax(0, 1fr);
    gap: calc(var(--_gap) * 1.5);
    align-items: start;
  }
  @media (min-width: 900px) {
    .workspace.open {
      grid-template-columns: minmax(300px, 2fr) minmax(0, 3fr);
    }
    /* The transcript stays in view while the list scrolls beside it. */
    .workspace.open .transcript {
      position: sticky;
      top: var(--_gap);
      max-height: calc(100vh - 2 * var(--_gap));
      overflow-y: auto;
    }
  }
  @media (max-width: 480px) {
    .top,
    main {
      padding: var(--_gap);
    }
  }

  button,
  .button {
    font: inherit;
    color: inherit;
    background: transparent;
    border: 1px solid var(--_border);
    border-radius: 8px;
    padding: 4px 12px;
    min-height: 32px;
    cursor: pointer;
    text-decoration: none;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.4em;
  }
  button:hover,
  .button:hover {
    border-color: var(--_accent);
  }
  button:disabled {
    opacity: 0.6;
    cursor: default;
  }
  button.primary {
    ${accentButton}
    min-height: 32px;
  }
  button.danger {
    color: var(--_danger);
    border-color: var(--_danger);
  }
  .icon-button {
    padding: 4px;
    border-color: transparent;
  }
  @media (pointer: coarse) {
    button,
    .button,
    input,
    select {
      min-height: 44px;
    }
  }
  .field {
    display: inline-flex;
    flex-direction: column;
    gap: 2px;
    font-size: 0.85em;
    color: var(--_muted);
  }
  input,
  select {
    ${textBox}
    font-size: max(16px, 1rem);
    min-height: 32px;
    padding: 4px 8px;
    border: 1px solid var(--_border);
    background: var(--_bg);
    color: var(--_fg);
  }
  .note {
    color: var(--_muted);
    margin: 0;
  }
  .error {
    color: var(--_danger);
    margin: 0;
  }
  .error:empty {
    display: none;
  }
  /* Out of the layout while it has nothing to say, still a live region when it has. */
  .notice:empty {
    ${visuallyHidden}
  }
  .badge {
    display: inline-block;
    font-size: 0.75em;
    padding: 0 6px;
    border-radius: 999px;
    border: 1px solid var(--_border);
    color: var(--_muted);
    white-space: nowrap;
  }
  .rating {
    display: inline-flex;
    vertical-align: middle;
  }
  .rating[data-rating='down'] {
    color: var(--_danger);
  }
  .rating[data-rating='up'] {
    color: var(--_accent);
  }

  .login {
    display: flex;
    flex-direction: column;
    gap: calc(var(--_gap) * 0.75);
    max-width: 380px;
    margin: 12vh auto 0;
    padding: calc(var(--_gap) * 2);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .login label {
    font-weight: 600;
  }
  .login button {
    align-self: flex-start;
  }
  :host > .note {
    text-align: center;
    padding-top: 12vh;
  }
`;
