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
import { renderLogin } from './login-form.js';
import { OpenConversation } from './open-conversation.js';
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
 * visitor's data erased. It speaks only to the server's console API (`api`), with the
 * login cookie the server set.
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
 *
 * @cssprop --aalis-color-background - Background of the page.
 * @cssprop --aalis-color-text - Main text colour.
 * @cssprop --aalis-color-muted - Secondary text.
 * @cssprop --aalis-color-accent - Chart bars, focus rings, the selected row.
 * @cssprop --aalis-color-danger - Errors, thumbs down, the erase button.
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
  readonly #open = new OpenConversation(this, this.#client, {
    loggedOut: this.#loggedOut,
    erased: () => {
      void this.#feed.reload();
      void this.#stats.load();
      this.#focusAfterUpdate('#conversations-heading');
    },
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
          ${renderConversationList(this.#feed, open.sessionId, {
            search: (filter) => void this.#feed.reload(filter),
            more: () => void this.#more(),
            open: (id) => {
              void open.open(id);
              this.#focusAfterUpdate('#transcript-heading');
            },
          })}
          ${open.sessionId ? renderTranscript(open, this.#transcriptContext, this.#transcriptHandlers) : nothing}
        </div>
      </main>`;
  }

  /** Logged in: the figures and the list. Logged out: nothing of them stays on the page. */
  #entered(state: SessionState): void {
    if (state === 'in') {
      void this.#feed.reload();
      void this.#stats.load();
      this.#focusAfterUpdate('h1');
    } else {
      this.#feed.clear();
      this.#stats.clear();
      this.#open.close();
      this.#focusAfterUpdate('#token');
    }
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
