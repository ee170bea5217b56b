/**
 * The conversations, newest activity first: a search form (words, rating, and where the
 * server lets a person answer, whether one is asked for or answers), one button per
 * conversation (Tab reaches it, Enter opens it), and "Load more" while the server has
 * more. Each row says whose it is (anonymous visitors marked), whether it waits for a
 * person or one answers it, when it started and last moved, how many messages it has,
 * and its worst rating.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { thumbDownIcon, thumbUpIcon } from '../shared/icons.js';
import type { ConversationRow, HandoffState, Rating } from './console-api.js';
import type { ConversationFeed, FeedFilter } from './conversation-feed.js';
import { formatDateTime, formatLater } from './days.js';

export interface ListHandlers {
  search(filter: FeedFilter): void;
  more(): void;
  open(sessionId: string): void;
}

/** `handoffOffered`: the server lets a person answer, so the list may be filtered by it. */
export function renderConversationList(
  feed: ConversationFeed,
  selected: string | undefined,
  handoffOffered: boolean,
  on: ListHandlers,
): TemplateResult {
  return html`<section class="conversations" part="conversations" aria-labelledby="conversations-heading">
    <h2 id="conversations-heading" tabindex="-1">Conversations</h2>
    ${renderFilter(feed.filter, handoffOffered, on)}
    <p class="note" role="status">${listStatus(feed)}</p>
    ${feed.error ? html`<p class="error" role="alert">${feed.error}</p>` : nothing}
    ${
      feed.rows.length
        ? html`<ul class="rows" aria-label="Conversations">
            ${repeat(
              feed.rows,
              (row) => row.sessionId,
              (row) => html`<li>${renderRow(row, row.sessionId === selected, on)}</li>`,
            )}
          </ul>`
        : nothing
    }
    ${
      feed.next
        ? html`<button type="button" class="more" ?disabled=${feed.loading} @click=${on.more}>
            ${feed.loading ? 'Loading…' : 'Load more'}
          </button>`
        : nothing
    }
  </section>`;
}

function renderFilter(filter: FeedFilter, handoffOffered: boolean, on: ListHandlers): TemplateResult {
  // Read from the form, so that the words typed and the choices picked always go together.
  const read = (form: HTMLFormElement): FeedFilter => {
    const data = new FormData(form);
    const rating = data.get('rating');
    const handoff = data.get('handoff');
    return {
      q: String(data.get('q') ?? ''),
      rating: rating === 'up' || rating === 'down' ? rating : '',
      handoff: handoff === 'waiting' || handoff === 'active' ? handoff : '',
    };
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    on.search(read(event.currentTarget as HTMLFormElement));
  };
  // A new choice applies at once; words wait for Enter (or the button), not every key.
  const picked = (event: Event) => on.search(read((event.currentTarget as HTMLSelectElement).form!));
  return html`<form class="filter" role="search" aria-label="Filter the conversations" @submit=${submit}>
    <label class="field grow">
      <span>Words</span>
      <input type="search" name="q" .value=${filter.q} placeholder="Search the messages" />
    </label>
    <label class="field">
      <span>Rating</span>
      <select name="rating" @change=${picked}>
        ${option('', 'All', filter.rating)} ${option('down', 'Thumbs down', filter.rating)}
        ${option('up', 'Thumbs up', filter.rating)}
      </select>
    </label>
    ${
      handoffOffered
        ? html`<label class="field">
            <span>A person</span>
            <select name="handoff" @change=${picked}>
              ${option('', 'All', filter.handoff)}
              ${option('waiting', 'Waiting for a person', filter.handoff)}
              ${option('active', 'Answered by a person', filter.handoff)}
            </select>
          </label>`
        : nothing
    }
    <button type="submit">Search</button>
  </form>`;
}

const option = <T extends string>(value: T | '', label: string, current: T | '') =>
  html`<option value=${value} ?selected=${value === current}>${label}</option>`;

function listStatus(feed: ConversationFeed): string {
  if (!feed.loaded) return feed.loading ? 'Loading…' : '';
  const filtered = feed.filter.q || feed.filter.rating || feed.filter.handoff;
  if (!feed.rows.length) return filtered ? 'No conversation matches.' : 'No conversation yet.';
  const n = `${feed.rows.length}${feed.next ? '+' : ''}`;
  const one = feed.rows.length === 1 && !feed.next;
  if (!filtered) return `${n} conversation${one ? '' : 's'}`;
  return one ? '1 conversation matches' : `${n} conversations match`;
}

function renderRow(row: ConversationRow, selected: boolean, on: ListHandlers): TemplateResult {
  return html`<button
    type="button"
    class="row"
    part="conversation-row"
    data-session=${row.sessionId}
    aria-current=${selected ? 'true' : 'false'}
    @click=${() => on.open(row.sessionId)}
  >
    <span class="visitor">
      <span class="visitor-id">${row.visitorId ?? 'unknown visitor'}</span>
      ${row.anonymous ? html`<span class="badge">anonymous</span>` : nothing}
      ${renderHandoffBadge(row.handoff)}
    </span>
    <span class="when">
      <time datetime=${new Date(row.startedAt).toISOString()}>${formatDateTime(row.startedAt)}</time>
      –
      <time datetime=${new Date(row.lastAt).toISOString()}>${formatLater(row.startedAt, row.lastAt)}</time>
    </span>
    <span class="count">${row.messageCount} message${row.messageCount === 1 ? '' : 's'}</span>
    ${renderRating(row.rating)}
  </button>`;
}

/** Marked while a person is asked for (the owner's to answer) or answers. */
function renderHandoffBadge(handoff: HandoffState | undefined): unknown {
  if (!handoff) return nothing;
  return html`<span class="badge handoff" data-handoff=${handoff}>
    ${handoff === 'waiting' ? 'waiting for a person' : 'answered by a person'}
  </span>`;
}

/** A thumb, worded for screen readers; nothing for a conversation nobody rated. */
export function renderRating(rating: Rating | undefined): unknown {
  if (!rating) return nothing;
  return html`<span class="rating" data-rating=${rating}>
    <span aria-hidden="true">${rating === 'down' ? thumbDownIcon : thumbUpIcon}</span>
    <span class="sr-only">${rating === 'down' ? 'rated down' : 'rated up'}</span>
  </span>`;
}
