import { css } from 'lit';

/**
 * The bubbles: the user's, the assistant's with its parts, a person's with their name, the
 * typing dots before the first words, and collapsible reasoning.
 */
export const messageStyles = css`
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
  .bubble.operator {
    align-self: flex-start;
    background: var(--_operator-bg);
    color: var(--_operator-fg);
  }
  .author {
    display: block;
    font-size: 0.85em;
    font-weight: 600;
  }
  .bubble.user .text,
  .bubble.operator .text,
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
`;
