/**
 * Days and times as the console shows them. A day of a range is `YYYY-MM-DD` (the date
 * pickers' format), both ends included, and a UTC day: the server counts its stats and
 * exports by UTC days, and a range of the owner's local days would leave out the latest
 * hours west of Greenwich. Moments (when a message was written) are on the owner's clock.
 */
import type { DayRange } from './console-api.js';

const DAY_MS = 86_400_000;

/** The UTC day of a moment, as `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The last `count` UTC days, today included. */
export function lastDays(count: number, now = Date.now()): DayRange {
  return { from: utcDay(now - (count - 1) * DAY_MS), to: utcDay(now) };
}

/**
 * Every day of the range, in order, so that a day without a turn still has its place
 * in the chart. At most `max` (a mistyped year must not draw ten thousand bars).
 */
export function daysOf({ from, to }: DayRange, max = 366): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(start) || Number.isNaN(end)) return [];
  const days: string[] = [];
  for (let t = start; t <= end && days.length < max; t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Whether the range is two real days in order. */
export function validRange(range: DayRange): boolean {
  return daysOf(range, 1).length === 1 && range.from <= range.to;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** A moment on the owner's clock: `12 Mar 2026, 14:05`. */
export const formatDateTime = (ms: number): string => dateTime.format(ms);

/** The later of two moments, shorter when it is on the same (local) day as the first. */
export function formatLater(first: number, later: number): string {
  return new Date(first).toDateString() === new Date(later).toDateString()
    ? time.format(later)
    : dateTime.format(later);
}

/** A `YYYY-MM-DD` day as a chart's label: `12 Mar`. */
export const formatDay = (day: string): string => shortDay.format(Date.parse(`${day}T00:00:00Z`));

const count = new Intl.NumberFormat();
/** A count with the owner's digit grouping: `12,345`. */
export const formatCount = (n: number): string => count.format(n);
