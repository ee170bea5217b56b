import { css } from 'lit';

/** The strip: the range and the exports in one row that wraps, the totals, the chart. */
export const statsStripStyles = css`
  .stats {
    display: flex;
    flex-direction: column;
    gap: var(--_gap);
    padding: var(--_gap);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .stats-head {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    gap: var(--_gap);
  }
  .stats-head h2 {
    margin-right: auto;
    align-self: center;
  }
  .range,
  .exports {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    gap: calc(var(--_gap) * 0.5);
  }
  .totals {
    display: flex;
    flex-wrap: wrap;
    gap: var(--_gap) calc(var(--_gap) * 2);
    margin: 0;
  }
  .figure dt {
    font-size: 0.8em;
    color: var(--_muted);
  }
  .figure dd {
    margin: 0;
    font-size: 1.25em;
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }
  .figure.down dd,
  .figure.warn dd {
    color: var(--_danger);
  }
  .day-chart {
    margin: 0;
  }
  .chart-body {
    display: flex;
    gap: 6px;
  }
  .axis-max {
    font-size: 0.75em;
    color: var(--_muted);
    font-variant-numeric: tabular-nums;
  }
  .day-chart svg {
    flex: 1;
    min-width: 0;
    height: 120px;
    display: block;
  }
  .bar {
    fill: var(--_accent);
  }
  .baseline {
    stroke: var(--_border);
    stroke-width: 1;
  }
  .day-chart figcaption {
    display: flex;
    justify-content: space-between;
    font-size: 0.75em;
    color: var(--_muted);
    margin-top: 2px;
  }
  .day-table summary {
    cursor: pointer;
    font-size: 0.85em;
    color: var(--_muted);
    margin-top: calc(var(--_gap) * 0.5);
  }
  .table-scroll {
    overflow-x: auto;
  }
  table {
    border-collapse: collapse;
    font-size: 0.85em;
    font-variant-numeric: tabular-nums;
  }
  th,
  td {
    padding: 2px 8px;
    text-align: right;
    border-bottom: 1px solid var(--_border);
    white-space: nowrap;
  }
  th[scope='row'],
  thead th:first-child {
    text-align: left;
  }
`;
