import { css } from 'lit';

/** A tool's name is one word, in the block and in the card alike: never broken inside, cut with … at worst. */
const oneWordName = css`
  font-family: var(--_mono);
  font-weight: 600;
  overflow-wrap: normal;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
  max-width: 100%;
`;

/**
 * The tool card's box, in the chat's shadow root: a tool-call part's `<details
 * class="tool-call-block">` and, while the call is written, the `<aalis-tool-progress>`
 * host that shares its class (`.tool-call-block-pending`), so the card keeps its place
 * and size from the first fragment to the result.
 */
export const toolCardStyles = css`
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
    ${oneWordName}
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
  .tool-call-block pre {
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
`;

/** Inside `<aalis-tool-progress>`: the pulsing icon, the name and the count while the call is written. */
export const toolCardElementStyles = css`
  :host {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0 0.5em;
  }
  .icon {
    display: inline-flex;
    color: var(--_accent);
    animation: pulse 1.2s ease-in-out infinite;
  }
  /* One word: never broken inside ("write_fi / le"); the count wraps below it instead. */
  .name {
    ${oneWordName}
  }
  .meta {
    color: var(--_muted);
    font-variant-numeric: tabular-nums;
  }
  :host([stalled]) .meta {
    color: var(--_warning);
  }
  @keyframes pulse {
    50% {
      opacity: 0.35;
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .icon {
      animation: none;
    }
  }
`;
