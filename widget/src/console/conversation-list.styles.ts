import { css } from 'lit';

/** The list: its filter form, and rows that read as cards, the selected one marked. */
export const conversationListStyles = css`
  .conversations {
    display: flex;
    flex-direction: column;
    gap: var(--_gap);
    min-width: 0;
  }
  .filter {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    gap: calc(var(--_gap) * 0.5);
  }
  .filter .grow {
    flex: 1 1 12em;
  }
  .rows {
    list-style: none;
    margin: 0;
    padding: 0;
    display: flex;
    flex-direction: column;
    gap: 6px;
  }
  .row {
    width: 100%;
    display: grid;
    grid-template-columns: minmax(0, 1fr) auto;
    grid-template-areas:
      'visitor rating'
      'when count';
    gap: 2px var(--_gap);
    text-align: left;
    padding: 8px 12px;
    border-radius: calc(var(--_radius) * 0.66);
    background: var(--_card-bg);
  }
  .row[aria-current='true'] {
    border-color: var(--_accent);
    box-shadow: inset 3px 0 0 var(--_accent);
  }
  .row .visitor {
    grid-area: visitor;
    display: flex;
    align-items: center;
    gap: 6px;
    min-width: 0;
  }
  .row .visitor-id {
    font-family: var(--_mono);
    font-size: 0.9em;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .row .handoff[data-handoff='waiting'] {
    color: var(--_warning);
    border-color: var(--_warning);
  }
  .row .when {
    grid-area: when;
    color: var(--_muted);
    font-size: 0.85em;
  }
  .row .count {
    grid-area: count;
    color: var(--_muted);
    font-size: 0.85em;
    text-align: right;
  }
  .row .rating {
    grid-area: rating;
    justify-self: end;
  }
  .more {
    align-self: center;
  }
`;
