/**
 * Turns per day as bars: an SVG drawn by the template itself (no chart library), one bar
 * per day of the range, a day without figures drawn as zero. The SVG stretches to the
 * width it gets, so its labels are HTML beside it, never stretched text. A screen reader
 * gets a sentence for the chart, and anyone the figures as a table under a disclosure.
 */
import { html, nothing, svg, type TemplateResult } from 'lit';
import type { DayRange, DayStats } from './console-api.js';
import { daysOf, formatCount, formatDay } from './days.js';

/** The drawing's own units: each day a slot this wide, the tallest bar this high. */
const SLOT = 10;
const BAR = 7;
const HEIGHT = 100;

/** The figures of every day of the range, in order, zero where the server had none. */
export function fillDays(days: readonly DayStats[], range: DayRange): DayStats[] {
  const byDate = new Map(days.map((day) => [day.date, day]));
  return daysOf(range).map((date) => byDate.get(date) ?? emptyDay(date));
}

const emptyDay = (date: string): DayStats => ({
  date,
  turns: 0,
  visitors: 0,
  tokens: { input: 0, output: 0 },
  errors: {},
  feedback: { up: 0, down: 0 },
  tools: {},
});

const errorsOf = (day: DayStats): number => Object.values(day.errors).reduce((sum, n) => sum + n, 0);

export function renderDayChart(days: readonly DayStats[]): TemplateResult {
  if (!days.length) return html`<p class="note">No day to show.</p>`;
  const most = Math.max(1, ...days.map((day) => day.turns));
  const busiest = days.reduce((a, b) => (b.turns > a.turns ? b : a));
  const total = days.reduce((sum, day) => sum + day.turns, 0);
  const first = days[0]!.date;
  const last = days[days.length - 1]!.date;
  const summary =
    `Turns per day from ${formatDay(first)} to ${formatDay(last)}: ${formatCount(total)} in all` +
    (total ? `, most on ${formatDay(busiest.date)} (${formatCount(busiest.turns)}).` : '.');
  return html`<figure class="day-chart" part="day-chart">
    <div class="chart-body">
      <span class="axis-max" aria-hidden="true">${formatCount(most)}</span>
      <svg
        viewBox="0 0 ${days.length * SLOT} ${HEIGHT}"
        preserveAspectRatio="none"
        role="img"
        aria-label=${summary}
      >
        <line
          class="baseline"
          x1="0"
          x2=${days.length * SLOT}
          y1=${HEIGHT}
          y2=${HEIGHT}
          vector-effect="non-scaling-stroke"
        />
        ${days.map((day, i) => {
          const height = (day.turns / most) * HEIGHT;
          return svg`<rect class="bar" x=${i * SLOT + (SLOT - BAR) / 2} y=${HEIGHT - height} width=${BAR} height=${height}>
            <title>${formatDay(day.date)}: ${formatCount(day.turns)} turn${day.turns === 1 ? '' : 's'}</title>
          </rect>`;
        })}
      </svg>
    </div>
    <figcaption aria-hidden="true">
      <span>${formatDay(first)}</span>
      <span>turns per day</span>
      <span>${formatDay(last)}</span>
    </figcaption>
    <details class="day-table">
      <summary>Days as a table</summary>
      ${renderTable(days)}
    </details>
  </figure>`;
}

function renderTable(days: readonly DayStats[]): TemplateResult {
  const cost = days.some((day) => day.costUsd !== undefined);
  return html`<div class="table-scroll">
    <table>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Turns</th>
          <th scope="col">Visitors</th>
          <th scope="col">Tokens in</th>
          <th scope="col">Tokens out</th>
          ${cost ? html`<th scope="col">Cost (USD)</th>` : nothing}
          <th scope="col">Rated up</th>
          <th scope="col">Rated down</th>
          <th scope="col">Errors</th>
        </tr>
      </thead>
      <tbody>
        ${days.map(
          (day) =>
            html`<tr>
              <th scope="row">${day.date}</th>
              <td>${formatCount(day.turns)}</td>
              <td>${formatCount(day.visitors)}</td>
              <td>${formatCount(day.tokens.input)}</td>
              <td>${formatCount(day.tokens.output)}</td>
              ${cost ? html`<td>${(day.costUsd ?? 0).toFixed(2)}</td>` : nothing}
              <td>${formatCount(day.feedback.up)}</td>
              <td>${formatCount(day.feedback.down)}</td>
              <td>${formatCount(errorsOf(day))}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The range's totals, as the strip's figures show them. */
export interface Totals {
  turns: number;
  tokensIn: number;
  tokensOut: number;
  /** Undefined when no day has a cost (no prices configured). */
  costUsd: number | undefined;
  up: number;
  down: number;
  errors: number;
  toolFailures: number;
}

export function totalsOf(days: readonly DayStats[]): Totals {
  const totals: Totals = {
    turns: 0,
    tokensIn: 0,
    tokensOut: 0,
    costUsd: undefined,
    up: 0,
    down: 0,
    errors: 0,
    toolFailures: 0,
  };
  for (const day of days) {
    totals.turns += day.turns;
    totals.tokensIn += day.tokens.input;
    totals.tokensOut += day.tokens.output;
    if (day.costUsd !== undefined) totals.costUsd = (totals.costUsd ?? 0) + day.costUsd;
    totals.up += day.feedback.up;
    totals.down += day.feedback.down;
    totals.errors += errorsOf(day);
    for (const tool of Object.values(day.tools)) totals.toolFailures += tool.failures;
  }
  return totals;
}
