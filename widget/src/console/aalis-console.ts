import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import { toolCardStyles } from '../components/tool-card/tool-card.styles.js';
import { stringsFor } from '../i18n/strings.js';
import { targetSizes } from '../shared/control-styles.js';
import { themeTokens } from '../shared/theme-tokens.js';
import { consoleStyles } from './aalis-console.styles.js';
import { ConsoleApi, type LoggedOut } from './console-api.js';
import { ConsoleSession, type SessionState } from './console-session.js';
import { ConversationFeed } from './conversation-feed.js';
import { renderConversationList } from './conversation-list.js';
import { conversationListStyles } from './conversation-list.styles.js';
import { ConversationLive } from './conversation-live.js';
import type { HandoffPanel } from './handoff-panel.js';
import { handoffPanelStyles } from './handoff-panel.styles.js';
import { renderLogin } from './login-form.js';
import { OpenConversation } from './open-conversation.js';
import { OperatorDesk } from './operator-desk.js';
import { RangeStats } from './range-stats.js';
import { renderStatsStrip } from './stats-strip.js';
import { statsStripStyles } from './stats-strip.styles.js';
import { renderTranscript } from './transcript-view.js';
import { transcriptStyles } from './transcript-view.styles.js';

/**
 * `<aalis-console>`: the site owner's console, the page a self-hosted server serves at
 * `/admin`. A login with the admin token, then the activity of a day range (a chart of
 * turns per day, tokens, ratings, the transcripts as CSV or JSONL), and every visitor's
 * conversations: searched by their words, filtered by rating, read whole, and a
 * visitor's data erased. Where the server lets a person answer (PROTOCOL.md section 8),
 * the list finds the conversations waiting for one, the open conversation is live, and
 * the owner replies as a person and gives it back to the assistant. It speaks only to
 * the server's console API (`api`), with the login cookie the server set.
 *
 * The element is the shell: each concern is a controller (login, list, open
 * conversation, stats) and each part of the page a template of its own file.
 *
 * @csspart login - The login form.
 * @csspart header - The top bar with the logout button.
 * @csspart stats - The range, its totals, the day chart and the exports.
 * @csspart day-chart - The turns-per-day chart.
 * @csspart conversations - The filter form and the list.
 * @csspart conversation-row - One conversation in the list (a button).
 * @csspart transcript - The open conversation.
 * @csspart handoff-state - Where the open conversation stands with a person, and its "Give back" button.
 * @csspart reply - The reply box: the reply, the name it is sent under, the send button.
 *
 * @cssprop --aalis-color-background - Background of the page.
 * @cssprop --aalis-color-text - Main text colour.
 * @cssprop --aalis-color-muted - Secondary text.
 * @cssprop --aalis-color-accent - Chart bars, focus rings, the selected row.
 * @cssprop --aalis-color-danger - Errors, thumbs down, the erase button.
 * @cssprop --aalis-color-warning - Conversations waiting for a person.
 * @cssprop --aalis-font-family - Text font.
 * @cssprop --aalis-font-mono - Visitor and session ids.
 */
export class AalisConsole extends LitElement {
  static override styles = [
    themeTokens,
    targetSizes,
    consoleStyles,
    statsStripStyles,
    conversationListStyles,
    transcriptStyles,
    handoffPanelStyles,
    toolCardStyles,
  ];

  /** Where the console API is: `/admin/api` on the server that serves the page. */
  @property() api = '/admin/api';
  /** `light`, `dark`, or `auto` (follows the system's colour scheme). */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'auto';

  /** One client for every controller; its base follows `api` (set when the element connects). */
  readonly #client = new ConsoleApi();
  readonly #loggedOut = (error: LoggedOut) => this.#session.ended(error.message);
  readonly #session: ConsoleSession = new ConsoleSession(this, this.#client, (state) => this.#entered(state));
  readonly #feed = new ConversationFeed(this, this.#client, this.#loggedOut);
  readonly #stats = new RangeStats(this, this.#client, this.#loggedOut);
  readonly #live = new ConversationLive(this, this.#client, {
    handoffChanged: (id, handoff) => this.#feed.handoffChanged(id, handoff),
    // A refused stream may be an ended login: asking the session says which.
    refused: () => void this.#session.recheck(),
  });
  readonly #desk = new OperatorDesk(this, this.#client, {
    loggedOut: this.#loggedOut,
    sent: (id, message) => this.#live.sent(id, message),
  });
  readonly #open = new OpenConversation(this, this.#client, {
    loggedOut: this.#loggedOut,
    erased: () => {
      void this.#feed.reload();
      void this.#stats.load();
      this.#focusAfterUpdate('#conversations-heading');
    },
    changed: (id) => this.#opened(id),
  });
  /** The chat's words for its tool blocks; the console itself speaks English. */
  readonly #strings = stringsFor('en');

  readonly #transcriptContext = {
    strings: this.#strings,
    imageUrl: (id: string) => `/images/${encodeURIComponent(id)}`,
  };

  readonly #transcriptHandlers = {
    close: () => {
      const id = this.#open.sessionId;
      this.#open.close();
      // Back to the row it was opened from, so the owner goes on down the list.
      this.#focusAfterUpdate(id ? `.row[data-session="${CSS.escape(id)}"]` : '#conversations-heading');
    },
    askErase: () => {
      this.#open.askErase();
      // The safe answer first: Enter on the next key press must not erase.
      this.#focusAfterUpdate('.cancel-erase');
    },
    cancelErase: () => {
      this.#open.cancelErase();
      this.#focusAfterUpdate('.erase');
    },
    confirmErase: () => void this.#open.confirmErase(),
  };

  readonly #handoffPanel: HandoffPanel = {
    live: this.#live,
    desk: this.#desk,
    on: {
      draft: (text) => this.#desk.setDraft(text),
      name: (name) => this.#desk.setName(name),
      send: () => {
        const id = this.#open.sessionId;
        if (id) void this.#desk.send(id);
      },
      release: () => {
        const id = this.#open.sessionId;
        // The button goes with the handoff: the reply box is where the owner was working.
        if (id) void this.#desk.release(id).then((done) => done && this.#focusAfterUpdate('#reply-text'));
      },
      reconnect: () => this.#live.reconnect(),
    },
  };

  override connectedCallback(): void {
    // Before the controllers start: the session is asked for when the element connects.
    this.#client.base = this.api;
    super.connectedCallback();
  }

  protected override render(): TemplateResult {
    const session = this.#session;
    if (session.state !== 'in') {
      return renderLogin(
        { error: session.error, busy: session.busy, checking: session.state === 'checking' },
        (token) => void session.login(token),
      );
    }
    const open = this.#open;
    return html`<header class="top" part="header">
        <h1 tabindex="-1">Aalis console</h1>
        <button type="button" class="logout" ?disabled=${session.busy} @click=${() => void session.logout()}>
          Log out
        </button>
      </header>
      <main>
        ${session.error ? html`<p class="error" role="alert">${session.error}</p>` : nothing}
        ${renderStatsStrip(this.#stats, {
          setRange: (range) => void this.#stats.setRange(range),
          exportUrl: (range, format) => this.#client.exportUrl(range, format),
        })}
        <p class="note notice" role="status">${open.notice}</p>
        <div class="workspace ${open.sessionId ? 'open' : ''}">
          ${renderConversationList(this.#feed, open.sessionId, session.handoffOffered, {
            search: (filter) => void this.#feed.reload(filter),
            more: () => void this.#more(),
            open: (id) => {
              void open.open(id);
              this.#focusAfterUpdate('#transcript-heading');
            },
          })}
          ${
            open.sessionId
              ? renderTranscript(
                  open,
                  this.#transcriptContext,
                  this.#transcriptHandlers,
                  session.handoffOffered ? this.#handoffPanel : undefined,
                )
              : nothing
          }
        </div>
      </main>`;
  }

  /** Logged in: the figures and the list. Logged out: nothing of them stays on the page. */
  #entered(state: SessionState): void {
    if (state === 'in') {
      void this.#feed.reload();
      void this.#stats.load();
      // The handoff webhook's link names a conversation (`/admin#<sessionId>`): it opens.
      const linked = linkedConversation();
      if (linked) void this.#open.open(linked);
      this.#focusAfterUpdate(linked ? '#transcript-heading' : 'h1');
    } else {
      this.#feed.clear();
      this.#stats.clear();
      this.#open.close();
      this.#focusAfterUpdate('#token');
    }
  }

  /** A conversation opened (or none): its live view, and a reply box of its own. */
  #opened(sessionId: string | undefined): void {
    // The same one again (its row clicked once more): the reply being written stays.
    if (sessionId !== undefined && sessionId === this.#live.sessionId) return this.#live.reconnect();
    this.#desk.reset();
    if (sessionId !== undefined && this.#session.handoffOffered) this.#live.watch(sessionId);
    else this.#live.stop();
  }

  /** The next page; the focus moves to its first row, where the owner reads on (the button may go). */
  async #more(): Promise<void> {
    const before = this.#feed.rows.length;
    await this.#feed.more();
    if (this.#feed.rows.length > before) this.#focusAfterUpdate(`.rows > li:nth-child(${before + 1}) .row`);
  }

  #focusAfterUpdate(selector: string): void {
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(selector)?.focus());
  }
}

/** The conversation the page's address names after its `#`, if any. */
function linkedConversation(): string | undefined {
  try {
    return decodeURIComponent(location.hash.slice(1)) || undefined;
  } catch {
    // Not a conversation's id (a malformed escape): the page opens as usual.
    return undefined;
  }
}
