/**
 * The list of conversations as the owner filters it: the words searched (`q`), the
 * rating, whether a person is asked for or answers, and the pages loaded so far ("Load more" follows the server's cursor). A
 * change of filter starts again from the first page; an answer to an older filter that
 * arrives late is dropped, so the list always matches what the form says.
 */
import type { ReactiveControllerHost } from 'lit';
import {
  LoggedOut,
  failureText,
  type ConsoleApi,
  type ConversationRow,
  type HandoffState,
  type Rating,
} from './console-api.js';

/** How many conversations a page asks for. */
export const PAGE_SIZE = 50;

export interface FeedFilter {
  q: string;
  /** `''` for all. */
  rating: Rating | '';
  /** `''` for all. */
  handoff: HandoffState | '';
}

const NO_FILTER: FeedFilter = { q: '', rating: '', handoff: '' };

export class ConversationFeed {
  filter: FeedFilter = NO_FILTER;
  rows: ConversationRow[] = [];
  /** The cursor to the next page, when there may be one. */
  next: string | undefined;
  loading = false;
  /** True once the first page of the current filter has come. */
  loaded = false;
  error = '';

  /** Counts the filters asked for: an answer for an earlier one is stale. */
  #generation = 0;
  readonly #host: ReactiveControllerHost;
  readonly #api: ConsoleApi;
  readonly #loggedOut: (error: LoggedOut) => void;

  constructor(host: ReactiveControllerHost, api: ConsoleApi, loggedOut: (error: LoggedOut) => void) {
    this.#host = host;
    this.#api = api;
    this.#loggedOut = loggedOut;
  }

  /** The first page for `filter` (the current one by default, e.g. after an erasure). */
  reload(filter: FeedFilter = this.filter): Promise<void> {
    this.filter = { ...filter, q: filter.q.trim() };
    this.rows = [];
    this.next = undefined;
    this.loaded = false;
    return this.#load(undefined);
  }

  /** The next page, added below the rows shown. */
  more(): Promise<void> {
    if (this.loading || !this.next) return Promise.resolve();
    return this.#load(this.next);
  }

  /**
   * The open conversation's handoff changed (its live view said so): its row says it at
   * once, rather than the list being asked again and the owner's place in it lost.
   */
  handoffChanged(sessionId: string, handoff: HandoffState | undefined): void {
    const row = this.rows.find((one) => one.sessionId === sessionId);
    if (!row || row.handoff === handoff) return;
    const { handoff: _was, ...rest } = row;
    const changed = handoff ? { ...rest, handoff } : rest;
    this.rows = this.rows.map((one) => (one === row ? changed : one));
    this.#host.requestUpdate();
  }

  /** Forgets everything shown: the owner logged out. */
  clear(): void {
    this.#generation++;
    Object.assign(this, { filter: NO_FILTER, rows: [], next: undefined });
    Object.assign(this, { loading: false, loaded: false, error: '' });
    this.#host.requestUpdate();
  }

  async #load(cursor: string | undefined): Promise<void> {
    const generation = ++this.#generation;
    this.loading = true;
    this.error = '';
    this.#host.requestUpdate();
    try {
      const { q, rating, handoff } = this.filter;
      const page = await this.#api.conversations({
        limit: PAGE_SIZE,
        ...(q ? { q } : {}),
        ...(rating ? { rating } : {}),
        ...(handoff ? { handoff } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (generation !== this.#generation) return;
      this.rows = [...this.rows, ...page.conversations];
      this.next = page.next;
      this.loaded = true;
    } catch (error) {
      if (generation !== this.#generation) return;
      // The element clears every list on a logout: nothing to say here.
      if (error instanceof LoggedOut) return this.#loggedOut(error);
      this.error = failureText(error);
    } finally {
      if (generation === this.#generation) {
        this.loading = false;
        this.#host.requestUpdate();
      }
    }
  }
}
