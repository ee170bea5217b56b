/**
 * The look of `<aalis-chat>`: one shadow root, so one stylesheet, composed here from each
 * component's own file (components/<name>/<name>.styles.ts). Its rules read the private
 * tokens of shared/theme-tokens.ts; a page themes the widget by setting public tokens
 * (`--aalis-*`) on the element or any ancestor, or styles its blocks through `::part`.
 * The views in files of their own (approval cards, the handoff's, the conversation list)
 * bring their rules with them, added after these when first shown (shared/lazy-view.ts).
 */
import { css } from 'lit';
import { targetSizes, textBox, visuallyHidden } from './shared/control-styles.js';
import { attachmentsStyles } from './components/attachments/attachments.styles.js';
import { challengeStyles } from './components/challenge/challenge.styles.js';
import { composerStyles } from './components/composer/composer.styles.js';
import { toolbarStyles } from './components/conversations/conversations.styles.js';
import { greetingStyles } from './components/greeting/greeting.styles.js';
import { launcherStyles } from './components/launcher/launcher.styles.js';
import { messageActionsStyles } from './components/message-actions/message-actions.styles.js';
import { messageStyles } from './components/message/message.styles.js';
import { statusLineStyles } from './components/status-line/status-line.styles.js';
import { toolCardStyles } from './components/tool-card/tool-card.styles.js';
import { transcriptStyles } from './components/transcript/transcript.styles.js';
import { turnStatusStyles } from './components/turn-status/turn-status.styles.js';
import { versionsStyles } from './components/versions/versions.styles.js';
import { markdownStyles } from './markdown/markdown.styles.js';
import { themeTokens } from './shared/theme-tokens.js';

/**
 * The rules no one component owns. They come first and hold only element selectors and
 * classes several components share (`.action`, `.note`, the small forms' fields), so a
 * component's own rules win by their selectors, never by their place in the list.
 */
const baseStyles = css`
  :host {
    display: flex;
    flex-direction: column;
    height: var(--_height);
    box-sizing: border-box;
    background: var(--_bg);
    color: var(--_fg);
    font-family: var(--_font);
    font-size: var(--_size);
    line-height: 1.5;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    overflow: hidden;
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
  .sr-only {
    ${visuallyHidden}
  }
  .note {
    color: var(--_muted);
    font-style: italic;
  }
  /* The small forms' fields (a name, an edit, a comment): one look. */
  .rename-form input,
  .feedback-form input,
  .edit-form textarea {
    flex: 1;
    min-width: 0;
    ${textBox}
    border: 1px solid var(--_accent);
    padding: 4px 8px;
  }
  .action {
    display: inline-flex;
    align-items: center;
    gap: 4px;
    padding: 4px 6px;
    border: 0;
    border-radius: 6px;
    background: none;
    color: var(--_muted);
    font: inherit;
    font-size: 0.85em;
    cursor: pointer;
  }
  .action:hover,
  .action[aria-pressed='true'] {
    color: var(--_accent);
  }
  button {
    font: inherit;
    border-radius: 8px;
    border: 1px solid var(--_border);
    background: var(--_bg);
    color: var(--_fg);
    padding: 4px 10px;
    cursor: pointer;
  }
`;

export const chatStyles = [
  themeTokens,
  baseStyles,
  targetSizes,
  launcherStyles,
  statusLineStyles,
  transcriptStyles,
  messageStyles,
  turnStatusStyles,
  toolbarStyles,
  greetingStyles,
  messageActionsStyles,
  versionsStyles,
  toolCardStyles,
  markdownStyles,
  challengeStyles,
  composerStyles,
  attachmentsStyles,
];
