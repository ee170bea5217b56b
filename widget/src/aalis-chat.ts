import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { property, query, state } from 'lit/decorators.js';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import {
  ErrorCode,
  Limits,
  approvalList,
  clockOffset,
  emptyView,
  reduce,
  toServerTime,
  versionGroups,
  type ChatMessage,
  type ChatView,
  type MessageError,
  type ServerFrame,
  type SessionSummary,
  type ToolDecisionFrame,
} from '@aalis/protocol/client';
import { Attachments, type Attachment } from './controllers/attachments.js';
import { ChatConnection, type TokenProvider } from './controllers/chat-connection.js';
import { browserSocket, type ConnectionState, type SocketFactory } from './controllers/connection.js';
import { Launcher } from './controllers/launcher.js';
import { StickToBottom } from './controllers/stick-to-bottom.js';
import { RenderPacing, onlyMovesACount } from './controllers/render-pacing.js';
import { shownStatus, turnStatusText } from './components/turn-status/turn-status.js';
import {
  AalisErrorEvent,
  AalisFeedbackEvent,
  AalisMessageEvent,
  AalisPanelEvent,
  AalisSendEvent,
  AalisToolApprovalEvent,
} from './events.js';
import { defaultLocale, errorText, stringsFor, type Strings } from './i18n/strings.js';
import { loadLexer } from './markdown/lexer.js';
import { plainTextOf } from './markdown/plain-text.js';
import type { MarkdownCache, RenderOptions } from './markdown/render.js';
import { nextMinuteIn } from './components/approval/approval.js';
import { renderAttachButton, renderAttachments } from './components/attachments/attachments.js';
import { fitToText, isSendKey, renderComposer } from './components/composer/composer.js';
import {
  plainText,
  renderAssistantMessage,
  renderTurn,
  renderUserMessage,
} from './components/message/message.js';
import type { PartContext } from './components/message/parts.js';
import { keepTabInside } from './components/launcher/focus-trap.js';
import { renderConversations } from './components/conversations/conversations.js';
import { renderEditButton, renderEditForm, renderSwitcher } from './components/versions/versions.js';
import { renderMessageActions, type ActionHandlers } from './components/message-actions/message-actions.js';
import {
  parseStarters,
  renderGreeting,
  templateStarters,
  type Starter,
} from './components/greeting/greeting.js';
import { renderLauncher } from './components/launcher/launcher.js';
import { ReasoningClock } from './components/message/reasoning-clock.js';
import { renderStatusLine } from './components/status-line/status-line.js';
import { chatStyles } from './aalis-chat.styles.js';

/** Matches a `send` (or `edit`, `regenerate`) to its echo or its refusal. */
const newClientMessageId = (): string => `c-${Math.random().toString(36).slice(2, 10)}`;

/**
 * Places of the history shown per frame while a long history is first shown, newest
 * first: four (eight messages in markdown) stay under a long task on a slow machine.
 */
const HISTORY_CHUNK = 4;

/** Runs `fn` in a task after the next frame: once what is rendered now has been painted. */
const afterPaint = (fn: () => void): void => void requestAnimationFrame(() => setTimeout(fn));

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
 * @event aalis-tool-approval - A tool call waits for the user's approval (once per request, also when restored after a reload). `detail: { callId, name, arguments, policy }`; answer with `decide()` or the card's buttons.
 * @event aalis-feedback - The visitor rated an answer. `detail: { messageId, rating, comment? }`.
 * @event aalis-open - Launcher mode: the panel opened.
 * @event aalis-close - Launcher mode: the panel closed.
 *
 * @csspart message-actions - The row under a finished answer: copy, thumbs up and down.
 * @csspart action-copy - Copies the answer's markdown.
 * @csspart action-up - Thumbs up; `aria-pressed` when that is the answer's stored verdict.
 * @csspart action-down - Thumbs down; `aria-pressed` likewise.
 * @csspart feedback-form - The optional comment a thumb opens.
 * @csspart action-regenerate - Under the last answer: a new answer to the same question, kept as a new version.
 * @csspart action-edit - Under the last question: edit it and send it again, as a new version.
 * @csspart edit-form - The last question being edited.
 * @csspart versions - The switcher of a place with several versions: `‹ 2 / 3 ›`.
 * @csspart toolbar - The row above the transcript, for a visitor the server knows: the conversations button.
 * @csspart conversations-button - Shows the visitor's conversations in place of the transcript.
 * @csspart conversations - The visitor's conversations: open, new, rename, delete.
 * @csspart welcome - The owner's welcome, shown while the conversation is empty.
 * @csspart starter - A starter prompt's button, shown while the conversation is empty.
 * @csspart launcher - Launcher mode: the round button that opens and closes the panel.
 * @csspart unread-dot - Launcher mode: the dot on the button after an answer ended while the panel was closed.
 * @csspart panel - Launcher mode: the panel the chat opens in (`role="dialog"`); the whole screen below 480 px wide.
 * @csspart status - The connection line above the transcript.
 * @csspart transcript - The scrolling conversation (`role="log"`).
 * @csspart bubble - Every message bubble; also `bubble-user`, `bubble-assistant`.
 * @csspart typing - The bubble shown before the assistant's first words.
 * @csspart reasoning - A collapsible reasoning block.
 * @csspart tool-call-block - A tool call that runs or ran: name, status, arguments, result. `data-status` `running`, `done` or `error`; `data-declined` `user` or `expired` for a call that never ran.
 * @csspart tool-image - An image in a tool's result (PNG, JPEG, GIF or WebP, shown from a `data:` URL); other entries show a short note instead.
 * @csspart tool-progress - A running tool's progress line in its block: bar, message and count ("3 / 5").
 * @csspart approval-card - A tool call waiting for the user's approval: name, arguments, time left, buttons.
 * @csspart approve-button - The approval card's Approve button.
 * @csspart deny-button - The approval card's Deny button.
 * @csspart allow-session-button - "Allow for this conversation", on cards whose policy allows it.
 * @csspart pending-card - A tool call being written: `<icon> <name> 142 chars · 3.2s`.
 * @csspart pending-card-icon - The pending card's tool icon.
 * @csspart pending-card-name - The pending card's tool name.
 * @csspart pending-card-meta - The pending card's character count and elapsed time.
 * @csspart turn-status - Why nothing streams: "Waiting for the model… 12 s"; `data-state` `waiting` or `retrying`.
 * @csspart code-block - A fenced code block with its copy button.
 * @csspart composer - The input area.
 * @csspart send-button - The send button.
 * @csspart attach-button - Attaches images (shown when the server's model reads images).
 * @csspart attachments - The images attached to the next message, each an `attachment`.
 * @csspart attachment - One attached image: its thumbnail, upload state and remove button.
 * @csspart message-images - The images a question was sent with.
 * @csspart message-image - One of them.
 * @csspart stop-button - The stop button shown while a turn runs.
 * @csspart jump-button - "Jump to latest", shown when the reader scrolled up.
 *
 * @cssprop --aalis-color-background - Background of the widget.
 * @cssprop --aalis-color-text - Main text colour.
 * @cssprop --aalis-color-muted - Secondary text: statuses, counters, reasoning.
 * @cssprop --aalis-color-accent - Buttons, links, icons, focus rings.
 * @cssprop --aalis-color-accent-text - Text on the accent colour.
 * @cssprop --aalis-color-border - Borders and separators.
 * @cssprop --aalis-color-warning - A card waiting for the model; the border of an approval card.
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
  /**
   * Sent in `hello`: the server's shared token (`AALIS_TOKEN`), or a visitor token, a
   * short-lived JWT the site's backend signed for its visitor. It sits in the page, so
   * it is read once: for tokens that expire, set `tokenProvider` instead.
   */
  @property() token = '';
  /**
   * Gives the visitor token, e.g. `() => fetch('/token').then((r) => r.text())`: called
   * before every connect and reconnect, so an expiring token is refreshed without a
   * reload; it wins over `token`. When the server refuses its token (4401) it is asked
   * once more before the widget gives up; when it throws, the widget says so with an
   * `aalis-error` (`token_provider_failed`) and tries again later. A property only.
   */
  @property({ attribute: false }) tokenProvider: TokenProvider | undefined = undefined;
  /** `en`, `zh-CN` or any registered locale; the browser's language by default. */
  @property() locale = '';
  /** `light`, `dark`, or `auto` (follows the system's colour scheme). */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'auto';
  /** The localStorage key that keeps the session id, so two widgets on one page do not collide. */
  @property({ attribute: 'session-key' }) sessionKey = 'aalis-chat-session';
  /** The text box's placeholder, over the locale's ("Ask anything…"). */
  @property() placeholder = '';
  /** Shown while the conversation is empty (markdown), over the server's `welcome`. */
  @property() welcome = '';
  /**
   * Starter prompts shown as buttons while the conversation is empty, over the server's: a
   * JSON array of texts, or of `{ "label", "text" }`. `<template>` children are another
   * way: each one's text is sent, its `data-label` shown.
   */
  @property({ converter: { fromAttribute: parseStarters } }) starters: Starter[] | undefined = undefined;
  /** The chat's title, over the locale's ("Chat"): the launcher panel's heading and name. */
  @property({ attribute: 'chat-title' }) chatTitle = '';
  /**
   * `inline` (the default): the chat is the element's box. `launcher`: a round button in
   * a corner of the page opens it in a panel (full screen below 480 px wide); open or
   * closed is remembered per `session-key`. The socket connects at once either way.
   */
  @property({ reflect: true }) mode: 'inline' | 'launcher' = 'inline';
  /** Launcher mode: the corner, `bottom-right` (the default) or `bottom-left`. */
  @property({ reflect: true }) position: 'bottom-right' | 'bottom-left' = 'bottom-right';
  /** Makes the sockets: tests and custom transports set it before the element connects. */
  @property({ attribute: false }) socketFactory: SocketFactory = browserSocket;

  /** The reducer's view of every frame received. */
  @state() view: ChatView = emptyView;
  @state() private offset = 0;
  @state() private hasMore = false;
  /** Errors of the session's turn, kept as sent: their words follow the locale. */
  @state() private errors: MessageError[] = [];
  @state() private notice = '';
  @state() private draft = '';
  @state() private announcement = '';
  /** The server's greeting (`ready`), used where no attribute or template says otherwise. */
  @state() private serverGreeting: { welcome?: string; starters?: string[] } = {};
  /** The conversation list, shown in place of the transcript; null while it is not. */
  @state() private conversationList: {
    sessions: SessionSummary[] | null;
    renaming?: string;
    confirming?: string;
  } | null = null;
  /** The version each place shows, by the id of its first message; the latest when absent. */
  @state() private chosen = new Map<string, number>();
  /** The last question, while it is being edited. */
  @state() private editing: string | undefined = undefined;
  /** The answer whose comment form is open, and the one whose copy button says "Copied". */
  @state() private commenting: string | undefined = undefined;
  @state() private copied: string | undefined = undefined;
  /** marked has loaded (lexer.ts): what showed as plain text renders as markdown. */
  @state() private markdownReady = false;
  /** Files are dragged over the composer. */
  @state() private dragging = false;
  /** The server knows this visitor (`ready.conversations`): it has a conversation list. */
  @state() private hasConversations = false;
  /**
   * How many places of the history are shown, counted from the newest: a long history
   * shows its newest places first and the older ones a chunk a frame after, so that no
   * render of it is a long task (`#revealOlder`).
   */
  @state() private shownPlaces = Infinity;

  @query('.transcript') private transcript!: HTMLElement;
  @query('textarea') private textarea!: HTMLTextAreaElement;

  readonly #connection = new ChatConnection(
    this,
    (frame) => this.#receive(frame),
    () => loadLexer(),
  );
  readonly #scroll = new StickToBottom(this, () => this.transcript);
  // Not `#`: `requestUpdate` reads it from Lit's constructor, before the fields exist.
  private readonly pacing = new RenderPacing(this);
  readonly #launcher = new Launcher(this);
  readonly #attachments = new Attachments(this);
  @query('.launcher') private launcherButton!: HTMLButtonElement | null;
  @query('.panel') private panel!: HTMLElement | null;
  #composing = false;
  /** Markdown caches of the running turn's text parts: only their last block is re-parsed. */
  #caches = new Map<number, MarkdownCache>();
  /** Finished messages render once: they never change. */
  #rendered = new WeakMap<ChatMessage, TemplateResult>();
  readonly #reasoning = new ReasoningClock();
  /** Sent messages the server has not yet accepted, by `clientMessageId`: given back if refused. */
  readonly #unconfirmed = new Map<string, string>();
  /** The images that went with those messages: given back with the text, else let go. */
  readonly #unconfirmedImages = new Map<string, Attachment[]>();
  /** Approval requests already announced (and evented), by call id: once each, reconnects included. */
  readonly #seenApprovals = new Set<string>();
  /** Calls decided here whose outcome has not arrived: their buttons stay disabled. */
  readonly #decided = new Set<string>();
  /** A conversation this tab asked to delete, until the server's list answers. */
  #deleting: string | undefined;
  /** The thumb last pressed here, by answer: its comment goes with it, before the server's echo. */
  readonly #ratings = new Map<string, 'up' | 'down'>();
  /** True while the history's older places are being shown, a chunk a frame. */
  #revealing = false;
  /** True while a frame is awaited to show more of a long text that rendered its end first. */
  #revealingText = false;
  /** Re-renders the approval cards when their minutes left change. */
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;

  get strings(): Strings {
    return stringsFor(this.locale || defaultLocale());
  }

  /** `connecting`, `connected`, `reconnecting` or `offline`. */
  get connectionState(): ConnectionState {
    return this.#connection.state;
  }

  /** Sends a message; false (and a visible notice) when it cannot be sent now. */
  send(text: string): boolean {
    return this.#send(text, false);
  }

  /** `fromComposer`: the text is in the text box, and stays there when it cannot go. */
  #send(text: string, fromComposer: boolean): boolean {
    const trimmed = text.trim();
    // The composer's images go with its text; send() from code sends text alone.
    const attachments = fromComposer ? this.#attachments : undefined;
    if (attachments && !attachments.settled) {
      const uploading = attachments.items.some((item) => item.state === 'uploading');
      this.notice = uploading ? this.strings.waitForUploads : this.strings.removeFailedUploads;
      return false;
    }
    const images = attachments?.ids ?? [];
    if (!trimmed && !images.length) return false;
    if (trimmed.length > Limits.messageText) {
      this.notice = this.strings.tooLong(trimmed.length, Limits.messageText);
      return false;
    }
    const clientMessageId = newClientMessageId();
    const frame = {
      type: 'send',
      text: trimmed,
      clientMessageId,
      ...(images.length ? { images } : {}),
    } as const;
    if (!this.#connection.send(frame)) {
      const { strings } = this;
      this.notice = this.#connection.refusal
        ? strings.cannotSend
        : fromComposer
          ? strings.notConnected
          : strings.notSent;
      return false;
    }
    this.#unconfirmed.set(clientMessageId, trimmed);
    if (images.length) this.#unconfirmedImages.set(clientMessageId, attachments!.take());
    this.notice = '';
    this.errors = [];
    this.dispatchEvent(new AalisSendEvent(trimmed));
    return true;
  }

  /**
   * Rates an answer of the conversation, as its thumbs do: `up` or `down`, with an
   * optional comment; the latest one counts. False when it cannot be sent now (not
   * connected, or no such answer shown).
   */
  feedback(messageId: string, rating: 'up' | 'down', comment?: string): boolean {
    const answer = this.view.messages.find((m) => m.id === messageId && m.role === 'assistant');
    const text = comment?.trim().slice(0, Limits.feedbackComment);
    if (!answer) return false;
    const sent = this.#connection.send({
      type: 'feedback',
      messageId,
      rating,
      ...(text ? { comment: text } : {}),
    });
    if (!sent) {
      this.notice = this.strings.notSent;
      return false;
    }
    this.dispatchEvent(new AalisFeedbackEvent(messageId, rating, text || undefined));
    return true;
  }

  /** Launcher mode: whether the panel is open. */
  get isOpen(): boolean {
    return this.#launcher.isOpen;
  }

  /** Launcher mode: opens the panel and moves the focus into it (to the text box). */
  open(): void {
    if (!this.#launcher.set(true)) return;
    this.dispatchEvent(new AalisPanelEvent('aalis-open'));
    this.#focusAfterUpdate();
  }

  /** Launcher mode: closes the panel; the focus goes back to the button if it was inside. */
  close(): void {
    const inside = !!this.panel?.contains(this.shadowRoot?.activeElement ?? null);
    if (!this.#launcher.set(false)) return;
    this.dispatchEvent(new AalisPanelEvent('aalis-close'));
    if (inside) void this.updateComplete.then(() => this.launcherButton?.focus());
  }

  /** Launcher mode: opens the panel when closed, closes it when open. */
  toggle(): void {
    if (this.#launcher.isOpen) this.close();
    else this.open();
  }

  /** Stops the running turn. */
  abort(): void {
    this.#connection.send({ type: 'abort' });
  }

  /** Forgets this session and starts a new, empty one. */
  newSession(): void {
    this.#attachments.clear();
    this.view = emptyView;
    this.errors = [];
    this.#seenApprovals.clear();
    this.#connection.newSession();
  }

  /**
   * Answers a tool call waiting for approval (what the card's buttons do): `approve` or
   * `deny`; `remember: 'session'` also allows the tool for the rest of the conversation,
   * where the request's policy is `session`. Once per call: false when the call is not
   * waiting, was already decided here, or the connection is down (the status line says so).
   */
  decide(callId: string, decision: 'approve' | 'deny', remember?: 'session'): boolean {
    const approval = this.view.turn?.approvals.get(callId);
    if (!approval || this.#decided.has(callId)) return false;
    const frame: ToolDecisionFrame = { type: 'tool_decision', callId, decision };
    if (remember && decision === 'approve' && approval.policy === 'session') frame.remember = remember;
    if (!this.#connection.send(frame)) return false;
    this.#decided.add(callId);
    this.requestUpdate();
    return true;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this.markdownReady) {
      loadLexer().then(
        () => {
          this.#rendered = new WeakMap();
          this.#caches = new Map();
          this.markdownReady = true;
        },
        // Not served next to this file: the text stays plain, everything else works.
        () => {},
      );
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#expiryTimer);
  }

  protected override updated(): void {
    // For the styles: the launcher's panel is open (full screen on a phone hides the button).
    this.toggleAttribute('opened', this.mode === 'launcher' && this.#launcher.isOpen);
    // The cards say minutes left: render again when the count changes, not before.
    clearTimeout(this.#expiryTimer);
    const wait = this.view.turn && nextMinuteIn(this.view.turn.approvals.values(), this.#serverNow());
    if (wait) this.#expiryTimer = setTimeout(() => this.requestUpdate(), wait + 50);
    this.#revealText();
  }

  /** Shows more of a long text that rendered its end first (`MarkdownCache`), a piece a frame. */
  #revealText(): void {
    // After every render: a loop over the turn's few text parts, no array made.
    let partial = false;
    for (const cache of this.#caches.values()) partial ||= cache.partial;
    if (this.#revealingText || !partial) return;
    this.#revealingText = true;
    afterPaint(() => {
      this.#revealingText = false;
      for (const cache of this.#caches.values()) cache.revealMore();
      this.requestUpdate();
    });
  }

  /** Shows the history's older places, a chunk a frame, until all are shown. */
  #revealOlder(): void {
    // The history of this `ready`: a `history` frame later shows everything at once.
    const places = versionGroups(this.view.messages).length;
    if (places <= HISTORY_CHUNK) {
      this.shownPlaces = Infinity;
      return;
    }
    this.shownPlaces = HISTORY_CHUNK;
    if (this.#revealing) return;
    this.#revealing = true;
    // After the frame that shows a chunk, the next: one chunk per frame.
    const afterFrame = () => void this.updateComplete.then(() => afterPaint(next));
    const next = () => {
      const more = this.shownPlaces + HISTORY_CHUNK;
      const done = more >= places || this.shownPlaces === Infinity || !this.isConnected;
      this.shownPlaces = done ? Infinity : more;
      if (done) this.#revealing = false;
      else afterFrame();
    };
    afterFrame();
  }

  /** Moves the focus to `selector` (the text box by default) once rendered: the focused control is about to go. */
  #focusAfterUpdate(selector = 'textarea'): void {
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(selector)?.focus());
  }

  #serverNow(): number {
    return toServerTime(Date.now(), this.offset);
  }

  override requestUpdate(...args: Parameters<LitElement['requestUpdate']>): void {
    const first = !this.isUpdatePending;
    super.requestUpdate(...args);
    this.pacing?.requested(first);
  }

  protected override async scheduleUpdate(): Promise<void> {
    // Frames that arrive within one animation frame cause one render; counts alone, one a tick.
    await this.pacing.due();
    super.scheduleUpdate();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('locale')) this.#rendered = new WeakMap();
  }

  #receive(frame: ServerFrame): void {
    if (frame.type === 'ready' || frame.type === 'stream_resume') {
      this.offset = clockOffset(frame.serverTime, Date.now());
    }
    const before = this.view;
    const apply = () => (this.view = reduce(before, frame, this.#serverNow()));
    if (onlyMovesACount(before, frame)) this.pacing.count(apply);
    else apply();
    switch (frame.type) {
      case 'ready':
        // The conversation list asked for while offline is asked for now.
        if (this.conversationList?.sessions === null) this.#connection.send({ type: 'list_sessions' });
        this.serverGreeting = {
          ...(frame.welcome ? { welcome: frame.welcome } : {}),
          ...(frame.starters ? { starters: frame.starters } : {}),
        };
        this.#unconfirmed.clear();
        this.#forgetUnconfirmedImages();
        // Uploads belong to their session: another one (switched, or a new one) starts bare.
        if (before.sessionId !== frame.sessionId) this.#attachments.clear();
        this.#attachments.offer = frame.uploads;
        this.hasConversations = frame.conversations === true;
        this.#attachments.endpoint = new URL('images', this.#connection.serverBase);
        this.hasMore = frame.hasMore ?? false;
        this.#revealOlder();
        this.notice = '';
        this.#startTurn();
        break;
      case 'history':
        this.hasMore = frame.hasMore;
        // Asked for: shown at once.
        this.shownPlaces = Infinity;
        break;
      case 'session_deleted':
        // Deleted by its owner, in another tab or this one: a new conversation takes its place.
        if (this.#deleting === frame.sessionId) this.#deleting = undefined;
        this.newSession();
        break;
      case 'sessions': {
        if (this.conversationList) this.conversationList = { sessions: frame.sessions };
        const deleted = this.#deleting;
        this.#deleting = undefined;
        if (deleted === this.view.sessionId && !frame.sessions.some((s) => s.id === deleted))
          this.newSession();
        break;
      }
      case 'user_message':
        if (frame.clientMessageId !== undefined) {
          this.#unconfirmed.delete(frame.clientMessageId);
          this.#forgetUnconfirmedImages(frame.clientMessageId);
        }
        // A new version shows at once: every place goes back to its latest.
        if (frame.message.replaces) this.chosen = new Map();
        this.#startTurn();
        this.#seenApprovals.clear();
        break;
      case 'stream':
        this.#reasoning.track(this.view.turn?.parts ?? []);
        break;
      case 'turn_status':
      case 'stream_resume': {
        if (frame.type === 'stream_resume') this.#reasoning.joined(frame.parts);
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
        this.#reasoning.finished(frame.message.id);
        this.#caches = new Map();
        // Read aloud as words: "## Streaming | a | b |" would be read as its symbols.
        const reply = plainTextOf(plainText(frame.message)).slice(0, 200);
        const why = error && errorText(this.strings, error);
        this.announcement = [reply && this.strings.announceReply(reply), why].filter(Boolean).join(' ');
        // The bubble now says why the turn failed: the alert for it would say it twice.
        if (error) this.errors = this.errors.filter((e) => e.code !== error.code);
        if (before.turn) {
          this.dispatchEvent(new AalisMessageEvent(frame.message));
          this.#launcher.answered();
        }
        this.#seenApprovals.clear();
        break;
      }
      case 'error':
        this.#giveBack(
          frame.clientMessageId,
          frame.code === ErrorCode.ImagesUnsupported ? errorText(this.strings, frame) : undefined,
        );
        if (frame.sessionId) this.errors = [...this.errors, frame];
        // Refused before it was accepted: no answer was stopped, the words for `shutting_down` would be wrong.
        else
          this.notice =
            frame.code === ErrorCode.ShuttingDown ? this.strings.restarting : errorText(this.strings, frame);
        this.dispatchEvent(new AalisErrorEvent(frame.code, frame.message, frame.errorId));
        break;
    }
    this.#trackApprovals();
  }

  /**
   * New approval requests are announced and evented once each; the focus moves to the
   * first one's Approve button only from an empty composer, never from elsewhere nor from
   * a visitor in mid-sentence (whose next space would approve). Decisions whose card is
   * gone are forgotten.
   */
  #trackApprovals(): void {
    const turn = this.view.turn;
    for (const callId of this.#decided) if (!turn?.approvals.has(callId)) this.#decided.delete(callId);
    const fresh = turn ? approvalList(turn).filter((a) => !this.#seenApprovals.has(a.callId)) : [];
    if (!fresh.length) return;
    for (const approval of fresh) {
      this.#seenApprovals.add(approval.callId);
      this.dispatchEvent(new AalisToolApprovalEvent(approval));
    }
    this.announcement = fresh.map((a) => this.strings.approvalAsk(a.name)).join(' ');
    const active = this.shadowRoot?.activeElement;
    const fromComposer = !!active && !!this.renderRoot.querySelector('.composer')?.contains(active);
    if (fromComposer && !this.draft.trim()) {
      const callId = fresh[0]!.callId;
      void this.updateComplete.then(() =>
        this.renderRoot
          .querySelector<HTMLElement>(`.approval-card[data-call-id="${CSS.escape(callId)}"] .approve-button`)
          ?.focus(),
      );
    }
  }

  /**
   * A refused `send` (busy, rate limited, not saved): its text goes back into the
   * composer, unless the visitor has started typing something else, so nothing typed is
   * lost.
   */
  #giveBack(clientMessageId: string | undefined, imagesRefused?: string): void {
    if (clientMessageId === undefined) return;
    const text = this.#unconfirmed.get(clientMessageId);
    this.#unconfirmed.delete(clientMessageId);
    if (text !== undefined && !this.draft.trim()) this.draft = text;
    const images = this.#unconfirmedImages.get(clientMessageId);
    this.#unconfirmedImages.delete(clientMessageId);
    if (images) this.#attachments.restore(images, imagesRefused);
  }

  /** The previews of images a question took (or all of them), once it no longer needs them. */
  #forgetUnconfirmedImages(clientMessageId?: string): void {
    for (const [id, items] of this.#unconfirmedImages) {
      if (clientMessageId !== undefined && id !== clientMessageId) continue;
      for (const item of items) URL.revokeObjectURL(item.preview);
      this.#unconfirmedImages.delete(id);
    }
  }

  /** Files pasted, dropped or picked: checked, then uploaded; refusals said on the notice line. */
  async #attach(files: Iterable<File>): Promise<void> {
    const refused = await this.#attachments.add(files);
    if (refused.length) this.notice = refused.join(' ');
  }

  #imageUrl = (id: string): string =>
    new URL(`images/${encodeURIComponent(id)}`, this.#connection.serverBase).href;

  #startTurn(): void {
    this.#caches = new Map();
    this.#reasoning.joined(this.view.turn?.parts ?? []);
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

  #context(streaming: boolean, reasoningMs: ReadonlyMap<number, number> | undefined): PartContext {
    return {
      strings: this.strings,
      theme: this.theme,
      offset: this.offset,
      markdown: { ...this.#markdown, copyLabel: this.strings.copy },
      streaming,
      reasoningMs,
      ...(streaming ? { caches: this.#caches } : {}),
    };
  }

  protected override render() {
    if (this.mode !== 'launcher') return this.#renderChat();
    const { strings } = this;
    return renderLauncher(
      {
        strings,
        title: this.chatTitle || strings.title,
        open: this.#launcher.isOpen,
        built: this.#launcher.built,
        unread: this.#launcher.unread,
      },
      () => this.#renderChat(),
      this.#panelHandlers,
    );
  }

  #panelHandlers = {
    toggle: () => this.toggle(),
    close: () => this.close(),
    keydown: (event: KeyboardEvent) => {
      if (event.key === 'Escape' && this.#launcher.isOpen) {
        event.preventDefault();
        const fromPanel = !!this.panel?.contains(this.shadowRoot?.activeElement ?? null);
        this.close();
        if (!fromPanel) this.launcherButton?.focus();
      } else if (this.panel && event.currentTarget === this.panel) {
        keepTabInside(event, this.panel, this.shadowRoot?.activeElement ?? null);
      }
    },
  };

  /** The row above the transcript: the visitor's conversations, when it has any to have. */
  #renderToolbar(): unknown {
    if (!this.hasConversations) return nothing;
    return html`<div class="toolbar" part="toolbar">
      <button
        type="button"
        class="action conversations-button"
        part="conversations-button"
        aria-expanded=${this.conversationList ? 'true' : 'false'}
        @click=${this.#conversationHandlers.toggle}
      >
        ${this.strings.conversations}
      </button>
    </div>`;
  }

  #conversationHandlers = {
    toggle: () => {
      if (this.conversationList) return void (this.conversationList = null);
      this.conversationList = { sessions: null };
      // Offline: asked again with the next ready (#receive).
      this.#connection.send({ type: 'list_sessions' });
    },
    back: () => {
      this.conversationList = null;
      this.#focusAfterUpdate();
    },
    fresh: () => {
      this.conversationList = null;
      this.newSession();
      this.#focusAfterUpdate();
    },
    open: (id: string) => {
      this.conversationList = null;
      this.editing = this.commenting = undefined;
      this.#focusAfterUpdate();
      if (id === this.view.sessionId) return;
      this.errors = [];
      this.#seenApprovals.clear();
      this.#connection.openSession(id);
    },
    rename: (id: string | undefined) => {
      if (this.conversationList) this.conversationList = { ...this.conversationList, renaming: id };
      this.#focusAfterUpdate(id ? '.rename-form input' : '.open-conversation');
    },
    saveName: (id: string, title: string) => {
      this.#connection.send({ type: 'rename_session', sessionId: id, title });
    },
    remove: (id: string) => {
      const list = this.conversationList;
      if (!list) return;
      // Asked twice: the first press turns the button into "Delete?".
      if (list.confirming !== id) return void (this.conversationList = { ...list, confirming: id });
      // The open one is left once the server's list no longer has it (#receive), not before.
      if (this.#connection.send({ type: 'delete_session', sessionId: id })) this.#deleting = id;
      this.#focusAfterUpdate('.conversations-head button');
    },
  };

  #renderChat(): TemplateResult {
    const strings = this.strings;
    const turn = this.view.turn;
    const list = this.conversationList;
    if (list) {
      return html`${this.#renderToolbar()}
      ${renderConversations(
        {
          strings,
          sessions: list.sessions,
          current: this.view.sessionId,
          renaming: list.renaming,
          confirming: list.confirming,
          locale: this.locale || defaultLocale(),
        },
        this.#conversationHandlers,
      )}`;
    }
    return html`${this.#renderToolbar()}
      ${renderStatusLine(
        {
          strings,
          state: this.#connection.state,
          refusal: this.#connection.refusal,
          retryInSeconds: this.#connection.retryInSeconds,
        },
        () => this.#connection.retryNow(),
      )}
      <div
        class="transcript"
        part="transcript"
        role="log"
        aria-label=${strings.transcriptLabel}
        tabindex="0"
        @scroll=${this.#scroll.onScroll}
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
            this.view.messages.length
              ? html`<div class="history">
                  ${
                    // The history changes only when a turn ends: not re-diffed on every frame.
                    guard(
                      [
                        this.view.messages,
                        this.locale,
                        this.markdownReady,
                        this.commenting,
                        this.copied,
                        this.chosen,
                        this.editing,
                        turn === null,
                        this.shownPlaces,
                      ],
                      () => this.#renderHistory(),
                    )
                  }
                </div>`
              : nothing
          }
          ${this.#renderGreeting()}
          ${
            turn
              ? renderTurn(
                  turn,
                  this.#context(true, this.#reasoning.running),
                  { strings, serverNow: this.#serverNow(), decided: this.#decided },
                  this.#decide,
                )
              : nothing
          }
          ${this.errors.map(
            (e) =>
              html`<div class="error" role="alert" data-code=${e.code}>
                ${strings.errorTitle}: ${errorText(strings, e)}
              </div>`,
          )}
        </div>
        ${
          this.#scroll.stuck
            ? nothing
            : html`<button type="button" class="jump" part="jump-button" @click=${this.#scroll.jump}>
                ${strings.jumpToLatest}
              </button>`
        }
      </div>
      <div class="sr-only" aria-live="polite" aria-atomic="true">${this.announcement}</div>
      ${renderComposer(
        {
          strings,
          draft: this.draft,
          running: turn !== null,
          notice: this.notice,
          placeholder: this.placeholder || strings.composerPlaceholder,
          attach: this.#attachments.offer
            ? renderAttachButton(strings, this.#attachments.offer.types, (files) => void this.#attach(files))
            : nothing,
          attachments: renderAttachments(this.#attachments.items, strings, (key) => {
            this.#attachments.remove(key);
            this.#focusAfterUpdate();
          }),
          hasAttachments: this.#attachments.items.length > 0,
          dragging: this.dragging,
        },
        this.#composer,
      )} `;
  }

  /** Only while the conversation is empty: nothing said yet, none older, no turn. */
  #renderGreeting(): unknown {
    const { messages, turn } = this.view;
    if (messages.length || turn || this.hasMore) return nothing;
    const fromPage = this.starters ?? templateStarters(this);
    const starters = fromPage.length
      ? fromPage
      : (this.serverGreeting.starters ?? []).map((text) => ({ label: text, text }));
    return renderGreeting(
      this.welcome || this.serverGreeting.welcome || '',
      starters,
      { strings: this.strings, markdown: { ...this.#markdown, copyLabel: this.strings.copy } },
      this.#sendStarter,
    );
  }

  /**
   * A starter goes like a typed message; when it cannot go now, it waits in the text box.
   * Either way the focus goes to the text box: the clicked button is about to go.
   */
  #sendStarter = (text: string) => {
    if (!this.#send(text, true) && !this.draft.trim()) this.draft = text;
    this.#focusAfterUpdate();
  };

  /**
   * The conversation by place: one version of each (the latest unless this tab chose
   * another), a switcher where there are several, and the last exchange's own actions
   * (edit the question, regenerate the answer) while no turn runs.
   */
  #renderHistory(): unknown {
    const all = versionGroups(this.view.messages);
    const groups = all.slice(Math.max(0, all.length - this.shownPlaces));
    const idle = this.view.turn === null;
    return repeat(
      groups,
      (versions) => versions[0]![0]!.id,
      (versions, place) => {
        const key = versions[0]![0]!.id;
        const shown = Math.min(this.chosen.get(key) ?? versions.length - 1, versions.length - 1);
        const exchange = versions[shown]!;
        // Only the latest version of the last place can be asked again.
        const last = idle && place === groups.length - 1 && shown === versions.length - 1;
        const question = exchange[0]!.role === 'user' ? exchange[0]! : undefined;
        const answer = exchange.at(-1)!.role === 'assistant' ? exchange.at(-1)! : undefined;
        return [
          exchange.map((message) =>
            message === question && this.editing === message.id
              ? renderEditForm(message, this.strings, this.#editHandlers)
              : [
                  this.#renderMessage(message, last && message === answer),
                  // Right under the question it edits.
                  last && message === question
                    ? renderEditButton(this.strings, () => {
                        this.editing = message.id;
                        this.#focusAfterUpdate('.edit-form textarea');
                      })
                    : nothing,
                ],
          ),
          versions.length > 1
            ? renderSwitcher(shown, versions.length, { strings: this.strings, locked: !idle }, (index) => {
                this.chosen = new Map(this.chosen).set(key, index);
              })
            : nothing,
        ];
      },
    );
  }

  #editHandlers = {
    save: (text: string) => {
      const messageId = this.editing;
      if (!messageId) return;
      const clientMessageId = newClientMessageId();
      if (!this.#connection.send({ type: 'edit', messageId, text, clientMessageId })) {
        this.notice = this.strings.notSent;
        return;
      }
      // Refused after all (busy, no longer the last question): the text comes back to the box.
      this.#unconfirmed.set(clientMessageId, text);
      this.editing = undefined;
      this.#focusAfterUpdate();
      this.errors = [];
      this.dispatchEvent(new AalisSendEvent(text));
    },
    cancel: () => {
      this.editing = undefined;
      this.#focusAfterUpdate();
    },
  };

  #renderMessage(message: ChatMessage, regenerable = false): unknown {
    let rendered = this.#rendered.get(message);
    if (!rendered) {
      rendered =
        message.role === 'user'
          ? renderUserMessage(message, this.strings, this.#imageUrl)
          : renderAssistantMessage(message, this.#context(false, this.#reasoning.of(message.id)));
      this.#rendered.set(message, rendered);
    }
    if (message.role !== 'assistant') return rendered;
    // The actions change without the answer (a form opened, "Copied"): rendered apart.
    const state = { strings: this.strings, commenting: this.commenting, copied: this.copied, regenerable };
    return [rendered, renderMessageActions(message, state, this.#actions)];
  }

  #actions: ActionHandlers = {
    copy: (message) => {
      void navigator.clipboard?.writeText(plainText(message)).then(() => {
        this.copied = message.id;
        setTimeout(() => {
          if (this.copied === message.id) this.copied = undefined;
        }, 1500);
      });
    },
    rate: (message, rating) => {
      if (!this.feedback(message.id, rating)) return;
      this.#ratings.set(message.id, rating);
      this.commenting = message.id;
      this.#focusAfterUpdate('.feedback-form input');
    },
    comment: (message, text) => {
      const rating = this.#ratings.get(message.id) ?? message.feedback?.rating;
      if (text.trim() && rating && !this.feedback(message.id, rating, text)) return;
      this.commenting = undefined;
      this.announcement = this.strings.feedbackThanks;
      this.#focusAfterUpdate();
    },
    closeComment: () => {
      this.commenting = undefined;
      this.#focusAfterUpdate();
    },
    regenerate: (message) => {
      const clientMessageId = newClientMessageId();
      if (!this.#connection.send({ type: 'regenerate', messageId: message.id, clientMessageId })) {
        this.notice = this.strings.notSent;
        return;
      }
      this.errors = [];
      this.#focusAfterUpdate();
    },
  };

  #composer = {
    input: (event: Event) => {
      const textarea = event.target as HTMLTextAreaElement;
      this.draft = textarea.value;
      fitToText(textarea);
    },
    keydown: (event: KeyboardEvent) => {
      if (!isSendKey(event, this.#composing)) return;
      event.preventDefault();
      if (this.view.turn === null) this.#composer.send();
    },
    compositionstart: () => (this.#composing = true),
    compositionend: () => (this.#composing = false),
    send: () => {
      if (!this.#send(this.draft, true)) return;
      this.draft = '';
      if (this.textarea) this.textarea.style.height = 'auto';
    },
    stop: () => this.abort(),
    paste: (event: ClipboardEvent) => {
      const files = [...(event.clipboardData?.files ?? [])];
      // Text pastes as text; files become attachments where the server takes images.
      if (!files.length || !this.#attachments.offer) return;
      event.preventDefault();
      void this.#attach(files);
    },
    dragover: (event: DragEvent) => {
      if (!this.#attachments.offer || !event.dataTransfer?.types.includes('Files')) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      this.dragging = true;
    },
    dragleave: (event: DragEvent) => {
      // Leaving for one of its own children is not leaving.
      const to = event.relatedTarget as Node | null;
      if (!to || !(event.currentTarget as HTMLElement).contains(to)) this.dragging = false;
    },
    drop: (event: DragEvent) => {
      this.dragging = false;
      const files = [...(event.dataTransfer?.files ?? [])];
      if (!files.length || !this.#attachments.offer) return;
      event.preventDefault();
      void this.#attach(files);
    },
  };

  #decide = (callId: string, decision: 'approve' | 'deny', remember?: 'session') => {
    // The clicked button is about to be disabled, which drops the focus: it goes to the
    // composer, never to another card's Approve, where a second Enter would approve it.
    if (this.decide(callId, decision, remember)) this.textarea?.focus();
  };

  #loadOlder = () => {
    const oldest = this.view.messages[0];
    if (oldest) this.#connection.send({ type: 'history', before: oldest.id });
  };
}
