/**
 * The day range the owner picked (the last 7 days at first, today included) and its
 * stats. The same range is the transcripts' export range.
 */
import type { ReactiveControllerHost } from 'lit';
import {
  ConsoleApiError,
  LoggedOut,
  failureText,
  type ConsoleApi,
  type DayRange,
  type DayStats,
} from './console-api.js';
import { lastDays, validRange } from './days.js';

export const DEFAULT_DAYS = 7;

export class RangeStats {
  range: DayRange = lastDays(DEFAULT_DAYS);
  /** The days the server has figures for, in its order; undefined until they come. */
  days: DayStats[] | undefined;
  loading = false;
  error = '';

  /** Counts the ranges asked for: an answer for an earlier one is stale. */
  #generation = 0;
  readonly #host: ReactiveControllerHost;
  readonly #api: ConsoleApi;
  readonly #loggedOut: (error: LoggedOut) => void;

  constructor(host: ReactiveControllerHost, api: ConsoleApi, loggedOut: (error: LoggedOut) => void) {
    this.#host = host;
    this.#api = api;
    this.#loggedOut = loggedOut;
  }

  /** A new range from the date pickers; one that ends before it starts is said, not asked. */
  setRange(range: DayRange): Promise<void> {
    this.range = range;
    return this.load();
  }

  async load(): Promise<void> {
    const generation = ++this.#generation;
    const range = this.range;
    if (!validRange(range)) {
      Object.assign(this, {
        days: undefined,
        loading: false,
        error: 'Pick a start day on or before the end day.',
      });
      this.#host.requestUpdate();
      return;
    }
    Object.assign(this, { loading: true, error: '' });
    this.#host.requestUpdate();
    try {
      const { days } = await this.#api.stats(range);
      if (generation === this.#generation) this.days = days;
    } catch (error) {
      if (generation !== this.#generation) return;
      if (error instanceof LoggedOut) return this.#loggedOut(error);
      // A server from before the stats: the rest of the console works without them.
      this.error =
        error instanceof ConsoleApiError && error.status === 404
          ? 'This server keeps no daily stats.'
          : failureText(error);
    } finally {
      if (generation === this.#generation) {
        this.loading = false;
        this.#host.requestUpdate();
      }
    }
  }

  /** Forgets the figures (a logout); the range starts again at the last week. */
  clear(): void {
    this.#generation++;
    Object.assign(this, { range: lastDays(DEFAULT_DAYS), days: undefined, loading: false, error: '' });
    this.#host.requestUpdate();
  }
}
