/**
 * The look of `<aalis-chat>`. Its rules read the private tokens of theme-tokens.ts; a
 * page themes the widget by setting public tokens (`--aalis-*`) on the element or any
 * ancestor, or styles its blocks through `::part`.
 */
import { css } from 'lit';
import { themeTokens } from './theme-tokens.js';

export const chatStyles = [
  themeTokens,
  css`
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
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    .sr-only {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
      white-space: nowrap;
    }
    .status {
      display: flex;
      gap: 0.5em;
      align-items: center;
      justify-content: center;
      padding: 4px var(--_space);
      font-size: 0.85em;
      color: var(--_muted);
      border-bottom: 1px solid var(--_border);
    }
    .status[hidden] {
      display: none;
    }
    .transcript {
      flex: 1;
      overflow-y: auto;
      padding: var(--_space);
      position: relative;
    }
    /* The finished messages, apart from the running turn: a card that ticks changes the
       turn's size, and the history keeps its layout (the column lays out two children,
       not every message, at each frame). */
    .history {
      display: flex;
      flex-direction: column;
      gap: var(--_space);
      contain: layout;
    }
    .column {
      max-width: var(--_max-width);
      margin: 0 auto;
      display: flex;
      flex-direction: column;
      gap: var(--_space);
    }
    .bubble {
      max-width: 85%;
      padding: calc(var(--_space) * 0.75) var(--_space);
      border-radius: var(--_radius);
      overflow-wrap: anywhere;
    }
    .bubble.user {
      align-self: flex-end;
      background: var(--_user-bg);
      color: var(--_user-fg);
    }
    .bubble.user .text,
    .plain {
      white-space: pre-wrap;
    }
    .bubble.assistant {
      align-self: flex-start;
      background: var(--_assistant-bg);
      color: var(--_assistant-fg);
      display: flex;
      flex-direction: column;
      gap: calc(var(--_space) * 0.5);
      min-width: 40%;
    }
    .bubble.assistant > .text > :first-child {
      margin-top: 0;
    }
    .bubble.assistant > .text > :last-child {
      margin-bottom: 0;
    }
    .note {
      color: var(--_muted);
      font-style: italic;
    }
    .typing {
      display: inline-flex;
      gap: 4px;
      padding: 4px 0;
    }
    .typing span {
      width: 6px;
      height: 6px;
      border-radius: 50%;
      background: var(--_muted);
      animation: blink 1.2s infinite ease-in-out;
    }
    .typing span:nth-child(2) {
      animation-delay: 0.2s;
    }
    .typing span:nth-child(3) {
      animation-delay: 0.4s;
    }
    @keyframes blink {
      50% {
        opacity: 0.2;
      }
    }
    .turn-status {
      color: var(--_muted);
      font-size: 0.9em;
      font-variant-numeric: tabular-nums;
    }
    .turn-status[data-state='retrying'] {
      color: var(--_warning);
    }
    .toolbar {
      display: flex;
      justify-content: flex-end;
      padding: 2px calc(var(--_space) * 0.5);
      border-bottom: 1px solid var(--_border);
    }
    .conversations {
      flex: 1;
      overflow-y: auto;
      padding: var(--_space);
    }
    .conversations-head {
      display: flex;
      justify-content: space-between;
      align-items: center;
      margin-bottom: var(--_space);
    }
    .new-conversation {
      font: inherit;
      border: 0;
      border-radius: 8px;
      padding: 4px 12px;
      background: var(--_accent);
      color: var(--_accent-fg);
      cursor: pointer;
    }
    .conversations ul {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    .conversations li {
      display: flex;
      align-items: center;
      gap: 2px;
      border-bottom: 1px solid var(--_border);
    }
    .open-conversation {
      flex: 1;
      min-width: 0;
      display: flex;
      flex-direction: column;
      align-items: flex-start;
      padding: 8px 4px;
      border: 0;
      background: none;
      color: inherit;
      font: inherit;
      text-align: start;
      cursor: pointer;
    }
    .open-conversation[aria-current='true'] .conversation-title {
      font-weight: 600;
    }
    .conversation-title {
      max-width: 100%;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .conversation-time {
      color: var(--_muted);
      font-size: 0.85em;
    }
    .action.delete.confirm {
      color: var(--_danger);
    }
    .rename-form {
      flex: 1;
      display: flex;
      gap: 6px;
      padding: 6px 0;
    }
    /* The small forms' fields (a name, an edit, a comment): one look. */
    .rename-form input,
    .feedback-form input,
    .edit-form textarea {
      flex: 1;
      min-width: 0;
      font: inherit;
      /* iOS zooms into a field under 16px when it gets the focus. */
      font-size: max(16px, 1em);
      color: inherit;
      background: transparent;
      border: 1px solid var(--_accent);
      border-radius: 8px;
      padding: 4px 8px;
    }
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
    .actions {
      align-self: flex-start;
      display: flex;
      gap: 2px;
      margin-top: calc(var(--_space) * -0.5);
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
    .user-actions {
      align-self: flex-end;
    }
    .versions {
      align-self: flex-start;
      display: flex;
      align-items: center;
      gap: 2px;
      color: var(--_muted);
      font-size: 0.85em;
      font-variant-numeric: tabular-nums;
    }
    .versions .action:disabled {
      opacity: 0.4;
      cursor: default;
    }
    .edit-form {
      align-self: flex-end;
      display: flex;
      flex-direction: column;
      gap: 6px;
      width: min(85%, 32em);
    }
    .edit-form textarea {
      padding: 8px 10px;
      resize: vertical;
    }
    .edit-buttons {
      display: flex;
      justify-content: flex-end;
      gap: 6px;
    }
    .edit-buttons button {
      font: inherit;
      border: 1px solid var(--_border);
      border-radius: 8px;
      padding: 4px 12px;
      background: none;
      color: inherit;
      cursor: pointer;
    }
    .edit-buttons .edit-save {
      border-color: var(--_accent);
      background: var(--_accent);
      color: var(--_accent-fg);
    }
    .feedback-form {
      align-self: flex-start;
      display: flex;
      gap: 6px;
      width: min(100%, 28em);
    }
    .feedback-form input {
      border-color: var(--_border);
    }
    .feedback-form button {
      font: inherit;
      border: 0;
      border-radius: 8px;
      padding: 4px 12px;
      background: var(--_accent);
      color: var(--_accent-fg);
      cursor: pointer;
    }
    .tool-call-block {
      border: 1px solid var(--_card-border);
      background: var(--_card-bg);
      border-radius: calc(var(--_radius) * 0.66);
      padding: 6px 10px;
      font-size: 0.92em;
    }
    .tool-call-block summary {
      cursor: pointer;
      display: flex;
      flex-wrap: wrap;
      gap: 0.5em;
      align-items: center;
    }
    /* The expand marker a flex summary loses, turning as the block opens. */
    .tool-call-block summary::before {
      content: '';
      border: 0.3em solid transparent;
      border-left: 0.45em solid var(--_muted);
      border-right-width: 0;
      transition: transform 0.15s;
    }
    .tool-call-block[open] > summary::before {
      transform: rotate(90deg);
    }
    /* A tool's name is one word: never broken inside ("write_fi / le"), cut with … at worst. */
    .tool-call-block .tool-name {
      font-family: var(--_mono);
      font-weight: 600;
      overflow-wrap: normal;
      white-space: nowrap;
      overflow: hidden;
      text-overflow: ellipsis;
      max-width: 100%;
    }
    .tool-call-block .tool-status {
      color: var(--_muted);
    }
    .tool-call-block[data-status='error'] .tool-status {
      color: var(--_danger);
    }
    .tool-call-block[data-declined] .tool-status {
      color: var(--_muted);
    }
    .tool-call-block[data-status='unknown'] {
      border-style: dashed;
      border-color: var(--_warning);
    }
    .tool-call-block[data-status='unknown'] .tool-status {
      color: var(--_warning);
    }
    .tool-progress {
      flex-basis: 100%;
      display: flex;
      align-items: center;
      gap: 0.5em;
      min-width: 0;
      color: var(--_muted);
    }
    .tool-progress progress {
      flex: 0 1 8em;
      min-width: 3em;
      accent-color: var(--_accent);
    }
    .tool-progress-message {
      flex: 1;
      min-width: 0;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .tool-progress-count {
      margin-left: auto;
      font-variant-numeric: tabular-nums;
    }
    .approval-card {
      border: 1px solid var(--_warning);
      border-left-width: 4px;
      background: var(--_card-bg);
      border-radius: calc(var(--_radius) * 0.66);
      padding: 8px 10px;
      font-size: 0.92em;
      display: flex;
      flex-direction: column;
      gap: 6px;
      min-width: 0;
    }
    .approval-head {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5em;
    }
    .approval-head .tool-icon {
      display: inline-flex;
      color: var(--_warning);
    }
    .approval-title {
      font-weight: 600;
    }
    .approval-expires {
      margin-left: auto;
      color: var(--_muted);
      font-size: 0.9em;
    }
    .approval-card pre {
      max-height: 12em;
      overflow: auto;
      padding: 4px 6px;
      background: var(--_bg);
      border: 1px solid var(--_border);
      border-radius: 6px;
    }
    .approval-actions {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
    }
    .approval-card .approve-button {
      background: var(--_accent);
      color: var(--_accent-fg);
      border-color: var(--_accent);
    }
    .approval-card button:disabled {
      opacity: 0.5;
      cursor: not-allowed;
    }
    .tool-call-block pre,
    .approval-card pre,
    .code-block pre {
      font-family: var(--_mono);
      font-size: 0.9em;
      overflow-x: auto;
      margin: 4px 0;
      white-space: pre-wrap;
    }
    .tool-image {
      display: block;
      max-width: 100%;
      max-height: 320px;
      object-fit: contain;
      margin: 4px 0;
      border-radius: var(--_radius);
    }
    .tool-image-note {
      margin: 4px 0;
      font-size: 0.85em;
      color: var(--_muted);
    }
    .tool-call-block h6 {
      margin: 8px 0 0;
      font-size: 0.8em;
      color: var(--_muted);
      font-weight: 600;
    }
    details.reasoning {
      color: var(--_muted);
      font-size: 0.92em;
      border-left: 3px solid var(--_border);
      padding-left: 8px;
    }
    details.reasoning summary {
      cursor: pointer;
    }
    details.reasoning p {
      white-space: pre-wrap;
      margin: 4px 0 0;
    }
    .code-block {
      border: 1px solid var(--_border);
      border-radius: 8px;
      background: var(--_bg);
      padding: 4px 8px;
    }
    .code-head {
      display: flex;
      justify-content: space-between;
      font-size: 0.8em;
      color: var(--_muted);
    }
    .table-wrap {
      overflow-x: auto;
    }
    table {
      border-collapse: collapse;
    }
    th,
    td {
      border: 1px solid var(--_border);
      padding: 4px 8px;
      /* Not the bubble's "anywhere": that lets a column shrink to one letter, breaking
         every word of its header. Long words still break; the table scrolls when wide. */
      overflow-wrap: break-word;
    }
    a {
      color: var(--_accent);
    }
    .error {
      align-self: stretch;
      border: 1px solid var(--_danger);
      color: var(--_danger);
      border-radius: 8px;
      padding: 6px 10px;
      font-size: 0.9em;
    }
    .jump {
      position: sticky;
      bottom: 0;
      margin: 0 auto;
      display: block;
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
    .composer {
      border-top: 1px solid var(--_border);
      padding: calc(var(--_space) * 0.75) var(--_space);
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
      font: inherit;
      /* iOS zooms into a text box under 16px when it gets the focus. */
      font-size: max(16px, 1em);
      color: inherit;
      background: transparent;
      border: 1px solid var(--_border);
      border-radius: 8px;
      padding: 8px 10px;
      max-height: 40vh;
      min-height: 2.6em;
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
    .send:disabled {
      opacity: 0.5;
      cursor: not-allowed;
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
    .refused {
      color: var(--_danger);
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
    .attachments {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
      list-style: none;
      padding: 0;
      max-width: var(--_max-width);
      margin: 0 auto 8px;
    }
    .attachment {
      position: relative;
      width: 64px;
      height: 64px;
      border: 1px solid var(--_border);
      border-radius: 8px;
      overflow: hidden;
    }
    .attachment img {
      width: 100%;
      height: 100%;
      object-fit: cover;
    }
    .attachment[data-state='uploading'] img {
      opacity: 0.5;
    }
    .attachment[data-state='failed'] {
      border-color: var(--_danger);
    }
    .attachment-state {
      position: absolute;
      inset: auto 0 0;
      font-size: 0.7em;
      padding: 1px 3px;
      background: var(--_bg);
      color: var(--_fg);
      white-space: nowrap;
      overflow: hidden;
      text-overflow: ellipsis;
    }
    .attachment[data-state='failed'] .attachment-state {
      color: var(--_danger);
    }
    .remove-attachment {
      position: absolute;
      top: 2px;
      right: 2px;
      padding: 0;
      width: 24px;
      height: 24px;
      display: inline-flex;
      align-items: center;
      justify-content: center;
      border-radius: 50%;
    }
    .message-images {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
      margin-bottom: 4px;
    }
    .message-images img {
      display: block;
      /* The width and height attributes give the box its shape before the image loads. */
      max-width: min(100%, 240px);
      max-height: 180px;
      height: auto;
      object-fit: contain;
      border-radius: 6px;
      background: var(--_bg);
    }
  `,
];
