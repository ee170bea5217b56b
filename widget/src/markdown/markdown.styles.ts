import { css } from 'lit';

/**
 * What rendered markdown needs beyond the browser's defaults: code blocks with their
 * copy button, tables that scroll when wide, links in the accent colour.
 */
export const markdownStyles = css`
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
  .code-block pre {
    font-family: var(--_mono);
    font-size: 0.9em;
    overflow-x: auto;
    margin: 4px 0;
    white-space: pre-wrap;
  }
`;
