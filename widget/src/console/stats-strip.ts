/**
 * The strip above the list: the day range (two date pickers, the last 7 UTC days at first),
 * the range's totals (turns, tokens, ratings, errors, cost when prices are set), the
 * turns-per-day chart, and the range's transcripts as downloads (CSV, JSONL).
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { DayRange, ExportFormat } from './console-api.js';
import { fillDays, renderDayChart, totalsOf } from './day-chart.js';
import { formatCount, validRange } from './days.js';
import type { RangeStats } from './range-stats.js';

export interface StripHandlers {
  setRange(range: DayRange): void;
  exportUrl(range: DayRange, format: ExportFormat): string;
}

export function renderStatsStrip(stats: RangeStats, on: StripHandlers): TemplateResult {
  const { range } = stats;
  const changed = (end: keyof DayRange) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    if (value) on.setRange({ ...range, [end]: value });
  };
  const days = stats.days && fillDays(stats.days, range);
  return html`<section
    class="stats"
    part="stats"
    aria-labelledby="stats-heading"
    aria-busy=${stats.loading ? 'true' : 'false'}
  >
    <div class="stats-head">
      <h2 id="stats-heading">Activity</h2>
      <div class="range" role="group" aria-label="Days (UTC)">
        <label class="field">
          <span>From (UTC)</span>
          <input type="date" name="from" .value=${range.from} max=${range.to} @change=${changed('from')} />
        </label>
        <label class="field">
          <span>To (UTC)</span>
          <input type="date" name="to" .value=${range.to} min=${range.from} @change=${changed('to')} />
        </label>
      </div>
      ${validRange(range) ? renderExports(range, on) : nothing}
    </div>
    ${stats.error ? html`<p class="error" role="alert">${stats.error}</p>` : nothing}
    ${days ? [renderTotals(days), renderDayChart(days)] : stats.loading ? html`<p class="note">Loading…</p>` : nothing}
  </section>`;
}

/** Plain links: the browser downloads the file itself, with the login cookie. */
function renderExports(range: DayRange, on: StripHandlers): TemplateResult {
  const link = (format: ExportFormat, label: string) =>
    html`<a class="button export-${format}" href=${on.exportUrl(range, format)} download>${label}</a>`;
  return html`<div class="exports" role="group" aria-label="Transcripts of the range">
    ${link('csv', 'Export as CSV')} ${link('jsonl', 'Export as JSONL')}
  </div>`;
}

function renderTotals(days: Parameters<typeof totalsOf>[0]): TemplateResult {
  const t = totalsOf(days);
  const figure = (label: string, value: string, kind = '') =>
    html`<div class="figure ${kind}">
      <dt>${label}</dt>
      <dd>${value}</dd>
    </div>`;
  return html`<dl class="totals">
    ${figure('Turns', formatCount(t.turns))} ${figure('Tokens in', formatCount(t.tokensIn))}
    ${figure('Tokens out', formatCount(t.tokensOut))}
    ${t.costUsd === undefined ? nothing : figure('Cost', `$${t.costUsd.toFixed(2)}`)}
    ${figure('Rated up', formatCount(t.up), 'up')} ${figure('Rated down', formatCount(t.down), 'down')}
    ${figure('Errors', formatCount(t.errors), t.errors ? 'warn' : '')}
    ${t.toolFailures ? figure('Tool failures', formatCount(t.toolFailures), 'warn') : nothing}
  </dl>`;
}
