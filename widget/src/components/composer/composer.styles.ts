import { css } from 'lit';
import { textBox, visuallyHidden } from '../../shared/control-styles.js';

/**
 * The composer: the text box, send or stop, the notice line and counter, and the
 * outline shown while files are dragged over it.
 *
 * The text box is one line high when empty (rows="1"); it grows with its text
 * (fit-to-text.ts) up to six lines (1.5em each, its padding and borders), less on a short
 * screen, then scrolls. Narrow (the launcher's panel, a phone; the composer's own width,
 * a container query, decides), send and stop show their icon alone, their word kept for
 * screen readers, and paddings give a little, so that the text box keeps room for its
 * placeholder (which wraps whole when it is longer still).
 *
 * Why here and not in the rules: comments inside `css` ship in the script-tag file.
 */
export const composerStyles = css`
  .composer {
    border-top: 1px solid var(--_border);
    padding: calc(var(--_space) * 0.75) var(--_space);
    container-type: inline-size;
  }
  .composer-row {
    display: flex;
    gap: 8px;
    align-items: flex-end;
    max-width: var(--_max-width);
    margin: 0 auto;
  }
  textarea {
    flex: 1;
    resize: none;
    ${textBox}
    border: 1px solid var(--_border);
    padding: 8px 10px;
    max-height: min(40vh, calc(9em + 18px));
  }
  .send,
  .stop {
    background: var(--_accent);
    color: var(--_accent-fg);
    border-color: var(--_accent);
    display: inline-flex;
    align-items: center;
    gap: 4px;
    padding: 8px 12px;
  }
  @container (max-width: 440px) {
    .send span,
    .stop span {
      ${visuallyHidden}
    }
    .send,
    .stop {
      padding-inline: 10px;
    }
    textarea {
      padding-inline: 8px;
    }
  }
  .send:disabled {
    opacity: 0.5;
    cursor: not-allowed;
  }
  /* Pressing it again sends Stop again, which does no harm: it stays a button. */
  .stop[data-state='stopping'] {
    opacity: 0.7;
    cursor: progress;
  }
  .composer-info {
    display: flex;
    justify-content: space-between;
    max-width: var(--_max-width);
    margin: 4px auto 0;
    font-size: 0.8em;
    color: var(--_muted);
  }
  .counter.over {
    color: var(--_danger);
    font-weight: 600;
  }
  .attach-button {
    display: inline-flex;
    align-items: center;
    padding: 8px;
    color: var(--_muted);
  }
  .composer.dragging {
    outline: 2px dashed var(--_accent);
    outline-offset: -4px;
  }
  .composer.dragging::before {
    content: attr(data-drop-label);
    display: block;
    text-align: center;
    font-size: 0.85em;
    color: var(--_accent);
  }
`;
