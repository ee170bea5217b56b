import { css } from 'lit';

/**
 * The toolbar: the handoff's button and the conversations button. The conversations
 * themselves bring their rules with them (conversations-view.styles.ts).
 */
export const toolbarStyles = css`
  .toolbar {
    display: flex;
    gap: 4px;
    justify-content: flex-end;
    padding: 2px calc(var(--_space) * 0.5);
    border-bottom: 1px solid var(--_border);
  }
`;
