import { css } from 'lit';

/**
 * The transcript: its facts, the erase question, and the messages as the chat draws
 * them (the visitor's on the right, the assistant's and an operator's on the left), with the owner's extras
 * (time, outcome, rating, tokens) in small print under each.
 */
export const transcriptStyles = css`
  .transcript {
    display: flex;
    flex-direction: column;
    gap: var(--_gap);
    min-width: 0;
    padding: var(--_gap);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .transcript-head {
    display: flex;
    align-items: center;
    justify-content: space-between;
  }
  .facts {
    display: grid;
    grid-template-columns: auto minmax(0, 1fr);
    gap: 2px var(--_gap);
    margin: 0;
    font-size: 0.9em;
  }
  .facts dt {
    color: var(--_muted);
  }
  .facts dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
  .visitor-id,
  .session-id {
    font-family: var(--_mono);
  }
  .confirm {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: calc(var(--_gap) * 0.5);
    padding: var(--_gap);
    border: 1px solid var(--_danger);
    border-radius: calc(var(--_radius) * 0.66);
  }
  .confirm p {
    flex-basis: 100%;
    margin: 0;
  }
  .messages {
    list-style: none;
    margin: 0;
    padding: 0;
    display: flex;
    flex-direction: column;
    gap: var(--_gap);
  }
  .message {
    display: flex;
    flex-direction: column;
    gap: 4px;
  }
  .message.user {
    align-items: flex-end;
  }
  .message.assistant,
  .message.operator {
    align-items: flex-start;
  }
  .meta,
  .usage,
  .feedback,
  .error-note {
    margin: 0;
    font-size: 0.8em;
    color: var(--_muted);
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
  }
  .meta .who {
    font-weight: 600;
  }
  .error-note {
    color: var(--_danger);
  }
  .feedback q {
    color: var(--_fg);
  }
  .bubble {
    max-width: 90%;
    padding: calc(var(--_space) * 0.6) calc(var(--_space) * 0.9);
    border-radius: var(--_radius);
    overflow-wrap: anywhere;
    display: flex;
    flex-direction: column;
    gap: calc(var(--_space) * 0.5);
  }
  .bubble.user {
    background: var(--_user-bg);
    color: var(--_user-fg);
  }
  .bubble.assistant {
    background: var(--_assistant-bg);
    color: var(--_assistant-fg);
    min-width: 40%;
  }
  /* A person, not the model: the same side, in the chat's colours for a person. */
  .bubble.operator {
    background: var(--_operator-bg, var(--_card-bg));
    color: var(--_operator-fg, var(--_fg));
    border: 1px solid var(--_border);
  }
  .bubble .text {
    margin: 0;
    white-space: pre-wrap;
  }
  .bubble a {
    color: inherit;
  }
  .images {
    margin: 0;
    padding-left: 1.2em;
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
`;
