import { css } from 'lit';

/**
 * Launcher mode: the round button in a corner, its unread dot, and the panel the chat
 * opens in, which is the whole screen on a phone.
 */
export const launcherStyles = css`
  /* Launcher mode: the element takes no room; the button and the panel float. */
  :host([mode='launcher']) {
    display: block;
    height: 0;
    border: 0;
    background: none;
    overflow: visible;
  }
  .launcher {
    position: fixed;
    bottom: 20px;
    right: 20px;
    width: 56px;
    height: 56px;
    border-radius: 50%;
    border: 0;
    background: var(--_accent);
    color: var(--_accent-fg);
    display: grid;
    place-items: center;
    cursor: pointer;
    box-shadow: 0 4px 16px rgb(0 0 0 / 25%);
    z-index: 2147483000;
  }
  .unread {
    position: absolute;
    top: 2px;
    right: 2px;
    width: 14px;
    height: 14px;
    border-radius: 50%;
    background: var(--_danger);
    border: 2px solid var(--_bg);
  }
  .panel {
    position: fixed;
    bottom: 88px;
    right: 20px;
    width: min(400px, calc(100vw - 40px));
    height: min(var(--_height), calc(100vh - 112px));
    display: flex;
    flex-direction: column;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    box-shadow: 0 8px 32px rgb(0 0 0 / 25%);
    overflow: hidden;
    z-index: 2147483000;
  }
  .panel[hidden] {
    display: none;
  }
  :host([position='bottom-left']) .launcher,
  :host([position='bottom-left']) .panel {
    right: auto;
    left: 20px;
  }
  .panel-head {
    display: flex;
    align-items: center;
    justify-content: space-between;
    padding: 6px 6px 6px var(--_space);
    border-bottom: 1px solid var(--_border);
  }
  .panel-head h2 {
    margin: 0;
    font-size: 1em;
  }
  .panel-close {
    display: grid;
    place-items: center;
    width: 36px;
    height: 36px;
    border: 0;
    border-radius: 50%;
    background: none;
    color: inherit;
    cursor: pointer;
  }
  /* A phone: the panel is the whole screen, and its own close button the way out. */
  @media (max-width: 479px) {
    :host([mode='launcher']) .panel {
      inset: 0;
      width: auto;
      height: auto;
      border: 0;
      border-radius: 0;
    }
    :host([opened]) .launcher {
      display: none;
    }
  }
`;
