import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, query, state } from 'lit/decorators.js';
import { guard } from 'lit/directives/guard.js';
import { live } from 'lit/directives/live.js';
import { repeat } from 'lit/directives/repeat.js';
import {
  ErrorCode,
  Limits,
  clockOffset,
  emptyView,
  progressList,
  reduce,
  toServerTime,
  type ChatMessage,
  type ChatView,
  type MessageError,
  type ServerFrame,
  type TurnView,
} from '@aalis/protocol/client';
import { renderCards, renderParts, type PartContext } from './components/parts.js';
import { turnStatusText } from './components/turn-status.js';
import { sendIcon, stopIcon } from './components/icons.js';
import {
  Connection,
  browserSocket,
  type ConnectionState,
  type SocketFactory,
} from './controllers/connection.js';
import { AalisConnectionChangeEvent, AalisErrorEvent, AalisMessageEvent, AalisSendEvent } from './events.js';
import { defaultLocale, errorText, stringsFor, type Strings } from './i18n/strings.js';
import type { MarkdownCache, RenderOptions } from './markdown/render.js';
import { chatStyles } from './styles/chat.styles.js';

/** Within this many pixels of the bottom, the transcript follows new output. */
const STICK_PX = 48;

/**
 * `<aalis-chat>`: a streaming, tool-using LLM chat for any page, talking to an Aalis
 * protocol server. Everything it shows is the protocol reducer's view of the frames it
 * received, so a refresh or a dropped connection restores exactly what was there.
 *
 * @summary A chat whose tool calls never look frozen.
 *
 * @event aalis-send - The user sent a message. `detail: { text }`.
 * @event aalis-message - A turn ended. `detail: { message }` (the stored assistant message).
 * @event aalis-error - An error from the server, or the connection refused for good. `detail: { code, message, errorId? }`.
 * @event aalis-connection-change - `detail: { state, retryInMs? }`; state is connecting, connected, reconnecting or offline.
 *
 * @csspart status - The connection line above the transcript.
 * @csspart transcript - The scrolling conversation (`role="log"`).
 * @csspart bubble - Every message bubble; also `bubble-user`, `bubble-assistant`.
 * @csspart typing - The bubble shown before the assistant's first words.
 * @csspart reasoning - A collapsible reasoning block.
 * @csspart tool-call-block - A tool call that runs or ran: name, status, arguments, result.
 * @csspart pending-card - A tool call being written: `<icon> <name> 142 chars · 3.2s`.
 * @csspart turn-status - Why nothing streams: "Waiting for the model… 12 s"; `data-state` `waiting` or `retrying`.
 * @csspart code-block - A fenced code block with its copy button.
 * @csspart composer - The input area.
 * @csspart send-button - The send button.
 * @csspart stop-button - The stop button shown while a turn runs.
 * @csspart jump-button - "Jump to latest", shown when the reader scrolled up.
 *
 * @cssprop --aalis-color-background - Background of the widget.
 * @cssprop --aalis-color-text - Main text colour.
 * @cssprop --aalis-color-muted - Secondary text: statuses, counters, reasoning.
 * @cssprop --aalis-color-accent - Buttons, links, icons, focus rings.
 * @cssprop --aalis-color-accent-text - Text on the accent colour.
 * @cssprop --aalis-color-border - Borders and separators.
 * @cssprop --aalis-color-warning - A card waiting for the model.
 * @cssprop --aalis-color-danger - Errors and failed tools.
 * @cssprop --aalis-bubble-user-background - The user's bubbles (defaults to the accent).
 * @cssprop --aalis-bubble-user-text - Text in the user's bubbles.
 * @cssprop --aalis-bubble-assistant-background - The assistant's bubbles.
 * @cssprop --aalis-bubble-assistant-text - Text in the assistant's bubbles.
 * @cssprop --aalis-card-background - Tool-call blocks and pending cards.
 * @cssprop --aalis-card-border - Their border.
 * @cssprop --aalis-font-family - Text font.
 * @cssprop --aalis-font-mono - Code and tool names.
 * @cssprop --aalis-font-size - Base font size.
 * @cssprop --aalis-radius - Corner radius of the widget and bubbles.
 * @cssprop --aalis-spacing - Base spacing.
 * @cssprop --aalis-max-width - Widest the conversation column grows.
 * @cssprop --aalis-height - Height of the widget.
 */
export class AalisChat extends LitElement {
  static override styles = chatStyles;

  /** The protocol server's address, e.g. `https://chat.example.com`; the page's origin by default. */
  @property() server = '';
  /** Sent in `hello` when the server requires a token. */
  @property() token = '';
  /** `en`, `zh-CN` or any registered locale; the browser's language by default. */
  @property() locale = '';
  /** `light`, `dark`, or `auto` (follows the system's colour scheme). */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'auto';
  /** The localStorage key that keeps the session id, so two widgets on one page do not collide. */
  @property({ attribute: 'session-key' }) sessionKey = 'aalis-chat-session';
  /** Makes the sockets: tests and custom transports set it before the element connects. */
  @property({ attribute: false }) socketFactory: SocketFactory = browserSocket;

  /** The reducer's view of every frame received. */
  @state() view: ChatView = emptyView;
  @state() connectionState: ConnectionState = 'offline';
  @state() private offset = 0;
  @state() private hasMore = false;
  /** Errors of the session's turn, kept as sent: their words follow the locale. */
  @state() private errors: MessageError[] = [];
  @state() private notice = '';
  @state() private refusal = '';
  @state() private draft = '';
  @state() private stuckToBottom = true;
  @state() private announcement = '';

  @query('.transcript') private transcript!: HTMLElement;
  @query('textarea') private textarea!: HTMLTextAreaElement;

  #connection: Connection | undefined;
  #composing = false;
  #retryTicker: ReturnType<typeof setInterval> | undefined;
  /** Markdown caches of the running turn's text parts: only their last block is re-parsed. */
  #caches = new Map<number, MarkdownCache>();
  /** Finished messages render once: they never change. */
  #rendered = new WeakMap<ChatMessage, TemplateResult>();
  #reasoningStartedAt: number | undefined;
  #reasoningMs = new Map<string, number>();
  /** Sent messages the server has not yet accepted, by `clientMessageId`: given back if refused. */
  readonly #unconfirmed = new Map<string, string>();
  #runningReasoningMs: number | undefined;

  get strings(): Strings {
    return stringsFor(this.locale || defaultLocale());
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Properties bound in the same template are set by now, but let them settle first.
    queueMicrotask(() => this.#open());
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#connection?.close();
    this.#connection = undefined;
    clearInterval(this.#retryTicker);
  }

  /** Sends a message; false (and a visible notice) when it cannot be sent now. */
  send(text: string): boolean {
    const trimmed = text.trim();
    if (!trimmed) return false;
    if (trimmed.length > Limits.messageText) {
      this.notice = this.strings.tooLong(trimmed.length, Limits.messageText);
      return false;
    }
    const clientMessageId = `c-${Math.random().toString(36).slice(2, 10)}`;
    if (!this.#connection?.send({ type: 'send', text: trimmed, clientMessageId })) {
      this.notice = this.strings.notConnected;
      return false;
    }
    this.#unconfirmed.set(clientMessageId, trimmed);
    this.notice = '';
    this.errors = [];
    this.dispatchEvent(new AalisSendEvent(trimmed));
    return true;
  }

  /** Stops the running turn. */
  abort(): void {
    this.#connection?.send({ type: 'abort' });
  }

  /** Forgets this session and starts a new, empty one. */
  newSession(): void {
    this.#storage((s) => s.removeItem(this.sessionKey));
    this.view = emptyView;
    this.errors = [];
    this.#connection?.rehello();
  }

  protected override async scheduleUpdate(): Promise<void> {
    // Frames that arrive within one animation frame cause one render.
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    super.scheduleUpdate();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('locale')) this.#rendered = new WeakMap();
  }

  protected override updated(changed: PropertyValues<this>): void {
    // A new server or transport after the first render: connect again (the first
    // connection is opened by connectedCallback).
    if (changed.get('server') !== undefined || changed.get('socketFactory') !== undefined) this.#open();
    // In a microtask: the status line and the cards render their text after this, in
    // microtasks queued when they connected, and the bottom is where they end.
    if (this.stuckToBottom && this.transcript)
      queueMicrotask(() => (this.transcript.scrollTop = this.transcript.scrollHeight));
  }

  #open(): void {
    if (!this.isConnected) return;
    this.#connection?.close();
    this.#connection = new Connection(
      {
        frame: (frame) => this.#receive(frame),
        state: (state, retryInMs) => {
          this.connectionState = state;
          this.dispatchEvent(new AalisConnectionChangeEvent(state, retryInMs));
          clearInterval(this.#retryTicker);
          // The "reconnecting in N s" line counts down.
          if (state === 'reconnecting') this.#retryTicker = setInterval(() => this.requestUpdate(), 1000);
        },
        refused: (code, reason) => {
          this.refusal = reason || `closed (${code})`;
          this.dispatchEvent(new AalisErrorEvent(String(code), this.refusal));
        },
        unreachable: () => this.#checkOrigin(),
        hello: () => {
          const sessionId = this.#storage((s) => s.getItem(this.sessionKey)) ?? undefined;
          return { ...(sessionId ? { sessionId } : {}), ...(this.token ? { token: this.token } : {}) };
        },
      },
      this.socketFactory,
    );
    this.#connection.open(this.#socketUrl());
  }

  /** Asks the server whether this page's origin is allowed; true (and a visible error) when not. */
  async #checkOrigin(): Promise<boolean> {
    try {
      const response = await fetch(new URL('origin-check', this.#serverBase()), { cache: 'no-store' });
      const { allowed } = (await response.json()) as { allowed?: boolean };
      if (allowed !== false) return false;
    } catch {
      return false;
    }
    this.refusal = this.strings.originRefused;
    this.dispatchEvent(new AalisErrorEvent('origin_refused', this.refusal));
    return true;
  }

  #serverBase(): URL {
    const base = new URL(this.server || location.origin, location.href);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    return base;
  }

  #socketUrl(): string {
    const url = new URL('ws', this.#serverBase());
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return url.toString();
  }

  #receive(frame: ServerFrame): void {
    if (frame.type === 'ready' || frame.type === 'stream_resume') {
      this.offset = clockOffset(frame.serverTime, Date.now());
    }
    const before = this.view;
    this.view = reduce(this.view, frame, toServerTime(Date.now(), this.offset));
    switch (frame.type) {
      case 'ready':
        this.#unconfirmed.clear();
        this.#storage((s) => s.setItem(this.sessionKey, frame.sessionId));
        this.hasMore = frame.hasMore ?? false;
        this.refusal = '';
        this.notice = '';
        this.#startTurn();
        break;
      case 'history':
        this.hasMore = frame.hasMore;
        break;
      case 'user_message':
        if (frame.clientMessageId !== undefined) this.#unconfirmed.delete(frame.clientMessageId);
        this.#startTurn();
        break;
      case 'stream':
        this.#trackReasoning();
        break;
      case 'turn_status':
      case 'stream_resume': {
        // Said once when the status changes; the line itself ticks unannounced. A wait is
        // said without its seconds (since = now): they would be stale by the time it is heard.
        const status = this.view.turn && shownStatus(this.view.turn);
        if (status && status !== before.turn?.status) {
          const now = status.state === 'waiting' ? status.since : toServerTime(Date.now(), this.offset);
          this.announcement = turnStatusText(status, this.strings, now);
        }
        break;
      }
      case 'tool_execute':
        if (frame.phase === 'start') this.announcement = this.strings.announceTool(frame.name);
        break;
      case 'message': {
        const { error } = frame.message;
        if (this.#runningReasoningMs !== undefined)
          this.#reasoningMs.set(frame.message.id, this.#runningReasoningMs);
        this.#caches = new Map();
        const reply = plainText(frame.message).slice(0, 200);
        const why = error && errorText(this.strings, error);
        this.announcement = [reply && this.strings.announceReply(reply), why].filter(Boolean).join(' ');
        // The bubble now says why the turn failed: the alert for it would say it twice.
        if (error) this.errors = this.errors.filter((e) => e.code !== error.code);
        if (before.turn) this.dispatchEvent(new AalisMessageEvent(frame.message));
        break;
      }
      case 'error':
        this.#giveBack(frame.clientMessageId);
        if (frame.sessionId) this.errors = [...this.errors, frame];
        // Refused before it was accepted: no answer was stopped, the words for `shutting_down` would be wrong.
        else
          this.notice =
            frame.code === ErrorCode.ShuttingDown ? this.strings.restarting : errorText(this.strings, frame);
        this.dispatchEvent(new AalisErrorEvent(frame.code, frame.message, frame.errorId));
        break;
    }
  }

  /**
   * A refused `send` (busy, rate limited, not saved): its text goes back into the
   * composer, unless the visitor has started typing something else, so nothing typed is
   * lost.
   */
  #giveBack(clientMessageId: string | undefined): void {
    if (clientMessageId === undefined) return;
    const text = this.#unconfirmed.get(clientMessageId);
    this.#unconfirmed.delete(clientMessageId);
    if (text !== undefined && !this.draft.trim()) this.draft = text;
  }

  #startTurn(): void {
    this.#caches = new Map();
    this.#reasoningStartedAt = undefined;
    this.#runningReasoningMs = undefined;
  }

  /** Reasoning lasts from its first delta until the next kind of part begins. */
  #trackReasoning(): void {
    const parts = this.view.turn?.parts ?? [];
    const reasoningAt = parts.findIndex((p) => p.type === 'reasoning');
    if (reasoningAt < 0) return;
    this.#reasoningStartedAt ??= Date.now();
    if (this.#runningReasoningMs === undefined && parts.length > reasoningAt + 1) {
      this.#runningReasoningMs = Date.now() - this.#reasoningStartedAt;
    }
  }

  #storage<T>(use: (storage: Storage) => T): T | undefined {
    try {
      return use(localStorage);
    } catch {
      // Storage can be disabled (privacy modes, sandboxed frames): the session then lasts the page.
      return undefined;
    }
  }

  #markdown: RenderOptions = {
    copyLabel: '',
    onCopy: (code, button) => {
      void navigator.clipboard?.writeText(code).then(() => {
        button.textContent = this.strings.copied;
        setTimeout(() => (button.textContent = this.strings.copy), 1500);
      });
    },
  };

  #context(streaming: boolean, reasoningMs: number | undefined): PartContext {
    return {
      strings: this.strings,
      offset: this.offset,
      markdown: { ...this.#markdown, copyLabel: this.strings.copy },
      streaming,
      reasoningMs,
      ...(streaming ? { caches: this.#caches } : {}),
    };
  }

  protected override render() {
    const strings = this.strings;
    return html`
      ${this.#renderStatus(strings)}
      <div
        class="transcript"
        part="transcript"
        role="log"
        aria-label=${strings.transcriptLabel}
        tabindex="0"
        @scroll=${this.#onScroll}
      >
        <div class="column">
          ${
            this.hasMore
              ? html`<button type="button" class="older" @click=${this.#loadOlder}>
                  ${strings.loadOlder}
                </button>`
              : nothing
          }
          ${
            // The history changes only when a turn ends: not re-diffed on every frame.
            guard([this.view.messages, this.locale], () =>
              repeat(
                this.view.messages,
                (m) => m.id,
                (m) => this.#renderMessage(m),
              ),
            )
          }
          ${this.#renderTurn()}
          ${this.errors.map(
            (e) =>
              html`<div class="error" role="alert" data-code=${e.code}>
                ${strings.errorTitle}: ${errorText(strings, e)}
              </div>`,
          )}
        </div>
        ${
          this.stuckToBottom
            ? nothing
            : html`<button type="button" class="jump" part="jump-button" @click=${this.#jumpToLatest}>
                ${strings.jumpToLatest}
              </button>`
        }
      </div>
      <div class="sr-only" aria-live="polite" aria-atomic="true">${this.announcement}</div>
      ${this.#renderComposer(strings)}
    `;
  }

  #renderStatus(strings: Strings) {
    const state = this.connectionState;
    let text: string;
    if (this.refusal) text = `${strings.offline}: ${this.refusal}`;
    else if (state === 'connecting') text = strings.connecting;
    else if (state === 'reconnecting') {
      const retryAt = this.#connection?.retryAt;
      text = strings.reconnecting(
        retryAt === undefined ? 0 : Math.max(0, Math.ceil((retryAt - performance.now()) / 1000)),
      );
    } else text = strings.offline;
    return html`<div
      class="status ${this.refusal ? 'refused' : ''}"
      part="status"
      role="status"
      ?hidden=${state === 'connected'}
      data-state=${state}
    >
      <span>${text}</span>
      ${
        state === 'reconnecting' || (state === 'offline' && !this.refusal)
          ? html`<button type="button" @click=${() => this.#connection?.retryNow()}>
              ${strings.retryNow}
            </button>`
          : nothing
      }
    </div>`;
  }

  #renderMessage(message: ChatMessage): TemplateResult {
    let rendered = this.#rendered.get(message);
    if (!rendered) {
      rendered = message.role === 'user' ? this.#renderUser(message) : this.#renderAssistant(message);
      this.#rendered.set(message, rendered);
    }
    return rendered;
  }

  #renderUser(message: ChatMessage): TemplateResult {
    return html`<div class="bubble user" part="bubble bubble-user" data-id=${message.id}>
      <span class="text">${plainText(message)}</span>
    </div>`;
  }

  #renderAssistant(message: ChatMessage): TemplateResult {
    const strings = this.strings;
    // Why it did not complete, when the server said (also in history); else what its status tells.
    const note = message.error
      ? errorText(strings, message.error)
      : message.status === 'aborted'
        ? strings.stopped
        : message.status === 'error'
          ? message.parts.length
            ? strings.failed
            : strings.interrupted
          : '';
    return html`<div
      class="bubble assistant"
      part="bubble bubble-assistant"
      data-id=${message.id}
      data-status=${message.status ?? 'complete'}
    >
      ${renderParts(message.parts, this.#context(false, this.#reasoningMs.get(message.id)))}
      ${note ? html`<div class="note">${note}</div>` : nothing}
    </div>`;
  }

  #renderTurn() {
    const turn = this.view.turn;
    if (!turn) return nothing;
    const context = this.#context(true, this.#runningReasoningMs);
    const cards = renderCards(progressList(turn), context);
    // A timer: readable when a screen reader reaches it, but not read out on every tick
    // inside the log (aria-live="off"); the polite region says it once when it changes.
    const shown = shownStatus(turn);
    const status = shown
      ? html`<aalis-turn-status
          class="turn-status"
          part="turn-status"
          role="timer"
          aria-live="off"
          data-state=${shown.state}
          .status=${shown}
          .offset=${this.offset}
          .strings=${this.strings}
        ></aalis-turn-status>`
      : nothing;
    if (!turn.parts.length) {
      // Before the assistant's first words: the cards sit in the typing indicator's bubble.
      return html`<div
        class="bubble assistant typing-bubble"
        part="bubble typing"
        aria-label=${this.strings.typing}
      >
        ${turn.toolCallsProgress.size ? cards : html`<span class="typing" aria-hidden="true"><span></span><span></span><span></span></span>`}
        ${status}
      </div>`;
    }
    return html`<div class="bubble assistant streaming" part="bubble bubble-assistant" aria-busy="true">
      ${renderParts(turn.parts, context)} ${cards} ${status}
    </div>`;
  }

  #renderComposer(strings: Strings) {
    const running = this.view.turn !== null;
    const length = this.draft.trim().length;
    const over = length > Limits.messageText;
    const showCounter = length > Limits.messageText * 0.8;
    return html`<div class="composer" part="composer">
      <div class="composer-row">
        <textarea
          rows="1"
          aria-label=${strings.composerLabel}
          placeholder=${strings.composerPlaceholder}
          .value=${live(this.draft)}
          @input=${this.#onInput}
          @keydown=${this.#onKeydown}
          @compositionstart=${() => (this.#composing = true)}
          @compositionend=${() => (this.#composing = false)}
        ></textarea>
        ${
          running
            ? html`<button type="button" class="stop" part="stop-button" @click=${() => this.abort()}>
                ${stopIcon}<span>${strings.stop}</span>
              </button>`
            : html`<button
                type="button"
                class="send"
                part="send-button"
                ?disabled=${!length || over}
                @click=${this.#submit}
              >
                ${sendIcon}<span>${strings.send}</span>
              </button>`
        }
      </div>
      <div class="composer-info">
        <span class="notice" role="status">${this.notice}</span>
        ${
          showCounter
            ? html`<span class="counter ${over ? 'over' : ''}"
                >${strings.tooLong(length, Limits.messageText)}</span
              >`
            : nothing
        }
      </div>
    </div>`;
  }

  #onInput = (event: Event) => {
    const textarea = event.target as HTMLTextAreaElement;
    this.draft = textarea.value;
    // Grow with the text, up to the CSS max-height.
    textarea.style.height = 'auto';
    textarea.style.height = `${textarea.scrollHeight}px`;
  };

  #onKeydown = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || event.shiftKey) return;
    // Enter that confirms an IME composition (Chinese, Japanese input) never sends.
    if (event.isComposing || this.#composing || event.keyCode === 229) return;
    event.preventDefault();
    if (this.view.turn === null) this.#submit();
  };

  #submit = () => {
    if (this.send(this.draft)) {
      this.draft = '';
      if (this.textarea) this.textarea.style.height = 'auto';
    }
  };

  #onScroll = () => {
    const t = this.transcript;
    this.stuckToBottom = t.scrollHeight - t.scrollTop - t.clientHeight <= STICK_PX;
  };

  #jumpToLatest = () => {
    this.stuckToBottom = true;
    this.transcript.scrollTop = this.transcript.scrollHeight;
  };

  #loadOlder = () => {
    const oldest = this.view.messages[0];
    if (oldest) this.#connection?.send({ type: 'history', before: oldest.id });
  };
}

function plainText(message: ChatMessage): string {
  return message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/**
 * The status the turn shows. A wait while tool calls are being written is not shown:
 * each card says itself when the model stalls, and two clocks for one wait would
 * disagree. A retry is always shown.
 */
function shownStatus(turn: TurnView): TurnView['status'] {
  const { status } = turn;
  if (status?.state === 'waiting' && turn.toolCallsProgress.size) return undefined;
  return status;
}
