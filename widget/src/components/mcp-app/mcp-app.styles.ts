/**
 * The look of `<aalis-mcp-app>`, in its own shadow root. A plain string, not Lit's `css`:
 * this file is part of the lazily loaded element, which must import nothing the chat's
 * main file holds. It reads the chat's private tokens (`--_*`), which the element, inside
 * the chat's card only, inherits already resolved (page themes and dark mode included).
 *
 * The frame is as tall as its app says (`ui/notifications/size-changed`), between a
 * minimum and `--aalis-app-max-height` (480px by default): an app cannot grow it further.
 */
export const mcpAppStyles = `
  :host {
    display: block;
    margin-top: 6px;
  }
  iframe {
    display: block;
    box-sizing: border-box;
    width: 100%;
    height: 150px;
    min-height: 40px;
    max-height: var(--aalis-app-max-height, 480px);
    border: 1px solid var(--_border, #dfe3e6);
    border-radius: 8px;
    background: transparent;
  }
  .link-confirm {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px 8px;
    margin-top: 6px;
    padding: 6px 8px;
    border: 1px solid var(--_warning, #ad5700);
    border-radius: 8px;
  }
  .link-ask {
    flex-basis: 100%;
    margin: 0;
    font-weight: 600;
  }
  .link-url {
    flex-basis: 100%;
    margin: 0;
    font-family: var(--_mono, monospace);
    font-size: 0.9em;
    color: var(--_muted, #60646c);
    overflow-wrap: anywhere;
  }
  button {
    font: inherit;
    min-width: 24px;
    min-height: 24px;
    border-radius: 8px;
    padding: 4px 12px;
    cursor: pointer;
    border: 1px solid var(--_border, #dfe3e6);
    background: transparent;
    color: inherit;
  }
  button.open {
    border-color: transparent;
    background: var(--_accent, #3e63dd);
    color: var(--_accent-fg, #ffffff);
  }
  button:focus-visible {
    outline: 2px solid var(--_accent, #3e63dd);
    outline-offset: 2px;
  }
  @media (pointer: coarse) {
    button {
      min-width: 44px;
      min-height: 44px;
    }
  }
`;
