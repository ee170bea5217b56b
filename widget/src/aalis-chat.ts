import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { property, query } from 'lit/decorators.js';
import { Limits, type ChatView } from '@aalis/protocol/client';
import { chatStyles } from './aalis-chat.styles.js';
import { renderAttachButton, renderAttachments } from './components/attachments/attachments.js';
import { renderChallenge } from './components/challenge/challenge.js';
import { renderComposer } from './components/composer/composer.js';
import { renderConversations, renderToolbar } from './components/conversations/conversations.js';
import { renderElicitations } from './components/elicitation/elicitations.js';
import type { ElicitationContent, ElicitationHost } from './components/elicitation/elicitation-requests.js';
import { parseStarters, type Starter } from './components/greeting/greeting.js';
import { keepTabInside } from './components/launcher/focus-trap.js';
import { renderLauncher } from './components/launcher/launcher.js';
import { McpApps } from './components/mcp-app/app-slot.js';
import { renderStatusLine } from './components/status-line/status-line.js';
import { Attachments } from './controllers/attachments.js';
import { ChallengeGate } from './controllers/challenge.js';
import { ChatConnection, type TokenProvider } from './controllers/chat-connection.js';
import { Composer } from './controllers/composer.js';
import { browserSocket, type ConnectionState, type SocketFactory } from './controllers/connection.js';
import { ConversationList } from './controllers/conversation-list.js';
import { Conversation } from './controllers/conversation.js';
import { HandoffRequest } from './controllers/handoff.js';
import { Launcher } from './controllers/launcher.js';
import { MessageActions } from './controllers/message-actions.js';
import { RenderPacing } from './controllers/render-pacing.js';
import { StickToBottom } from './controllers/stick-to-bottom.js';
import { StopRequest } from './controllers/stop-request.js';
import { Transcript } from './controllers/transcript.js';
import { AalisPanelEvent } from './shared/events.js';
import { defaultLocale, stringsFor, type Strings } from './i18n/strings.js';
import { loadLexer } from './markdown/lexer.js';

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
 * @event aalis-elicitation - An MCP server asks the visitor for input during a tool call (once per request, also when restored after a reload). `detail: { elicitationId, callId, serverName, mode, message }`; answered in the card, or with `answerElicitation()`.
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
 * @csspart toolbar - The row above the transcript: the handoff button, and for a visitor the server knows, the conversations button.
 * @csspart handoff-button - "Talk to a person", where the server offers one, until one is asked for; `requestHandoff()` does the same.
 * @csspart handoff-notice - The line over the composer (`role="status"`): a person is asked for, answers, or has handed back to the model; `data-state` `waiting`, `active` or `off`.
 * @csspart conversations-button - Shows the visitor's conversations in place of the transcript.
 * @csspart conversations - The visitor's conversations: open, new, rename, delete.
 * @csspart welcome - The owner's welcome, shown while the conversation is empty.
 * @csspart starter - A starter prompt's button, shown while the conversation is empty.
 * @csspart launcher - Launcher mode: the round button that opens and closes the panel.
 * @csspart unread-dot - Launcher mode: the dot on the button after an answer ended while the panel was closed.
 * @csspart panel - Launcher mode: the panel the chat opens in (`role="dialog"`); the whole screen below 480 px wide.
 * @csspart close-button - Launcher mode: the panel's close button, in its head beside the title.
 * @csspart status - The connection line above the transcript.
 * @csspart transcript - The scrolling conversation (`role="log"`).
 * @csspart bubble - Every message bubble; also `bubble-user`, `bubble-assistant`, and `bubble-operator` (a person's reply, their name first).
 * @csspart typing - The bubble shown before the assistant's first words.
 * @csspart reasoning - A collapsible reasoning block.
 * @csspart tool-call-block - A tool call that runs or ran: name, status, arguments, result. `data-status` `running`, `done` or `error`; `data-declined` `user` or `expired` for a call that never ran.
 * @csspart tool-image - An image in a tool's result (PNG, JPEG, GIF or WebP, shown from a `data:` URL); other entries show a short note instead.
 * @csspart tool-progress - A running tool's progress line in its block: bar, message and count ("3 / 5").
 * @csspart mcp-app - A tool's MCP App in its block (`<aalis-mcp-app>`), shown open without a click.
 * @csspart mcp-app-frame - The app's frame, sandboxed to scripts only; as tall as the app asks, within `--aalis-app-max-height`.
 * @csspart mcp-app-link-confirm - The row that asks the visitor before a link the app asked for opens: "Open example.com?", the address, Open and Cancel.
 * @csspart approval-card - A tool call waiting for the user's approval: name, arguments, time left, buttons.
 * @csspart approve-button - The approval card's Approve button.
 * @csspart deny-button - The approval card's Deny button.
 * @csspart allow-session-button - "Allow for this conversation", on cards whose policy allows it.
 * @csspart elicitation - An MCP server's request for the visitor's input (`<aalis-elicitation>`), open in its tool call's block: who asks, its message, time left, then a form or a page to visit.
 * @csspart elicitation-form - The request's form: a labelled field per input the server asks for.
 * @csspart elicitation-submit - The form's Submit button.
 * @csspart elicitation-decline - Decline, on a form or a page to visit.
 * @csspart elicitation-open - Opens the page to visit (http or https only) in a new window, on the visitor's click only.
 * @csspart pending-card - A tool call being written: `<icon> <name> 142 chars · 3.2s`.
 * @csspart pending-card-icon - The pending card's tool icon.
 * @csspart pending-card-name - The pending card's tool name.
 * @csspart pending-card-meta - The pending card's character count and elapsed time.
 * @csspart turn-status - Why nothing streams: "Waiting for the model… 12 s"; `data-state` `waiting`, `retrying`, `saving` or `unresponsive`.
 * @csspart code-block - A fenced code block with its copy button.
 * @csspart challenge - A bot check asked of an anonymous visitor before its first message: a line and the provider's widget.
 * @csspart composer - The input area.
 * @csspart send-button - The send button.
 * @csspart attach-button - Attaches images (shown when the server's model reads images).
 * @csspart attachments - The images attached to the next message, each an `attachment`.
 * @csspart attachment - One attached image: its thumbnail, upload state and remove button.
 * @csspart message-images - The images a question was sent with.
 * @csspart message-image - One of them.
 * @csspart stop-button - The stop button shown while a turn runs; `data-state="stopping"` (and "Stopping…") once pressed, until the turn ends.
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
 * @cssprop --aalis-bubble-operator-background - A person's bubbles, after a handoff.
 * @cssprop --aalis-bubble-operator-text - Text in a person's bubbles.
 * @cssprop --aalis-card-background - Tool-call blocks and pending cards.
 * @cssprop --aalis-card-border - Their border.
 * @cssprop --aalis-font-family - Text font.
 * @cssprop --aalis-font-mono - Code and tool names.
 * @cssprop --aalis-font-size - Base font size.
 * @cssprop --aalis-radius - Corner radius of the widget and bubbles.
 * @cssprop --aalis-spacing - Base spacing.
 * @cssprop --aalis-max-width - Widest the conversation column grows.
 * @cssprop --aalis-height - Height of the widget.
 * @cssprop --aalis-app-max-height - The tallest an MCP App's frame grows (480px by default).
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
   * reload; it wins over `token`. When the server refuses its token (4401), or closes
   * the socket at its expiry, it is asked once more (again after every `ready`) before the
   * widget gives up; when it throws, the widget says so with an `aalis-error`
   * (`token_provider_failed`) and tries again later. A property only.
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

  @query('.launcher') private launcherButton!: HTMLButtonElement | null;
  @query('.panel') private panel!: HTMLElement | null;

  // The concerns, one controller each; the element wires them together and renders.
  readonly #connection = new ChatConnection(
    this,
    (frame) => {
      this.#conversation.receive(frame);
      this.#stop.receive(frame);
      this.#handoff.receive(frame);
      this.#apps.receive(frame);
    },
    () => loadLexer(),
  );
  readonly #stop = new StopRequest(
    this,
    () => this.view,
    (frame) => this.#connection.send(frame),
  );
  readonly #handoff = new HandoffRequest(
    this,
    (frame) => this.#connection.send(frame),
    // To the text box, where the visitor writes to the person: the button is about to go.
    (sent) => (sent ? this.#focusAfterUpdate() : this.#composer.show({ notice: this.strings.notSent })),
  );
  readonly #scroll = new StickToBottom(this, () => this.renderRoot.querySelector<HTMLElement>('.transcript'));
  // Not `#`: `requestUpdate` reads it from Lit's constructor, before the fields exist.
  private readonly pacing = new RenderPacing(this);
  readonly #launcher = new Launcher(this);
  readonly #composer = new Composer(this, new Attachments(this), this.#connection, {
    running: () => this.view.turn !== null,
    sent: () => this.#conversation.clearErrors(),
    stop: () => this.abort(),
  });
  readonly #list = new ConversationList(this, (frame) => this.#connection.send(frame), {
    current: () => this.view.sessionId,
    open: (id) => {
      this.#actions.closeForms();
      this.#focusAfterUpdate();
      if (id === this.view.sessionId) return;
      this.#conversation.leave();
      this.#connection.openSession(id);
    },
    fresh: () => this.newSession(),
    focus: (selector) => this.#focusAfterUpdate(selector),
  });
  readonly #conversation = new Conversation(this, this.pacing, (frame) => this.#connection.send(frame), {
    ready: (frame, switched) => {
      this.#list.ready(frame);
      this.#composer.ready(frame, switched);
      this.#challenge.ready();
    },
    accepted: (clientMessageId) => this.#composer.accepted(clientMessageId),
    refused: (frame) => {
      this.#composer.refused(frame);
      this.#challenge.error(frame);
    },
    sessions: (frame) => {
      if (this.#list.received(frame)) this.newSession();
    },
    deleted: (sessionId) => {
      this.#list.deleted(sessionId);
      this.newSession();
    },
    answered: () => this.#launcher.answered(),
    mayFocusApproval: () => this.#composer.focusedAndEmpty(),
  });
  readonly #challenge = new ChallengeGate(this, {
    pass: (token) => this.#connection.passChallenge(token),
    passed: () => this.#composer.sendHeld(),
  });
  readonly #actions = new MessageActions(this, this.#composer, {
    announce: (text) => this.#conversation.announce(text),
    focus: (selector) => this.#focusAfterUpdate(selector),
  });
  readonly #apps = new McpApps(
    this,
    (frame) => this.#connection.send(frame),
    () => this.#connection.serverBase,
  );
  /**
   * What the requests' cards answer through. An answer from a card's button moves the focus
   * to the composer, as a decision does: the button is disabled, then goes with its card.
   */
  readonly #asked: ElicitationHost = { chat: this, answered: () => this.#toComposer() };
  readonly #transcript = new Transcript(this, {
    conversation: this.#conversation,
    actions: this.#actions,
    composer: this.#composer,
    imageUrl: (id) => new URL(`images/${encodeURIComponent(id)}`, this.#connection.serverBase).href,
    appIn: (part) => this.#apps.render(part),
    elicitationsIn: (part) => renderElicitations(part.callId, this.#conversation, this.#asked),
    // The clicked button is about to be disabled, which drops the focus: it goes to the
    // composer, never to another card's Approve, where a second Enter would approve it.
    decide: (callId, decision, remember) => {
      if (this.decide(callId, decision, remember)) this.#toComposer();
    },
    focus: () => this.#focusAfterUpdate(),
  });

  /** The reducer's view of every frame received. */
  get view(): ChatView {
    return this.#conversation.view;
  }

  set view(view: ChatView) {
    this.#conversation.view = view;
  }

  get strings(): Strings {
    return stringsFor(this.locale || defaultLocale());
  }

  /** `connecting`, `connected`, `reconnecting` or `offline`. */
  get connectionState(): ConnectionState {
    return this.#connection.state;
  }

  /** Sends a message; false (and a visible notice) when it cannot be sent now. */
  send(text: string): boolean {
    return this.#composer.send(text, false);
  }

  /**
   * Rates an answer of the conversation, as its thumbs do: `up` or `down`, with an
   * optional comment; the latest one counts. False when it cannot be sent now (not
   * connected, or no such answer shown).
   */
  feedback(messageId: string, rating: 'up' | 'down', comment?: string): boolean {
    const answer = this.view.messages.find((m) => m.id === messageId && m.role === 'assistant');
    const text = comment?.trim().slice(0, Limits.feedbackComment);
    return !!answer && this.#composer.feedback(messageId, rating, text);
  }

  /**
   * Asks for a person instead of the model (the "Talk to a person" button), where the server
   * offers one; `reason` goes to the site. False when none is offered, one is asked for or
   * answers already, or the connection is down.
   */
  requestHandoff(reason?: string): boolean {
    return this.#handoff.request(reason);
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

  /**
   * Stops the running turn. Sent again after a reconnect that finds the turn still running
   * (its instance may have died with the first one unread), until the turn ends.
   */
  abort(): void {
    this.#stop.press();
  }

  /** Forgets this session and starts a new, empty one. */
  newSession(): void {
    this.#composer.attachments.clear();
    this.#conversation.reset();
    this.#connection.newSession();
  }

  /**
   * Answers a tool call waiting for approval (what the card's buttons do): `approve` or
   * `deny`; `remember: 'session'` also allows the tool for the rest of the conversation,
   * where the request's policy is `session`. Once per call: false when the call is not
   * waiting, was already decided here, or the connection is down (the status line says so).
   */
  decide(callId: string, decision: 'approve' | 'deny', remember?: 'session'): boolean {
    return this.#conversation.decide(callId, decision, remember);
  }

  /**
   * Answers an MCP server's request for input (what its form's and page's buttons do):
   * `accept` (a form's values in `content`, by field name, typed as its schema says),
   * `decline` or `cancel`. Once per request: false when it is not open, was answered here,
   * or the connection is down. The server checks the values: a refused answer is said at the form.
   */
  answerElicitation(
    elicitationId: string,
    action: 'accept' | 'decline' | 'cancel',
    content?: ElicitationContent,
  ): boolean {
    return this.#conversation.elicitations.answer(this.view.turn, elicitationId, action, content);
  }

  protected override updated(): void {
    // For the styles: the launcher's panel is open (full screen on a phone hides the button).
    this.toggleAttribute('opened', this.mode === 'launcher' && this.#launcher.isOpen);
  }

  /** Moves the focus to the text box now: the focused control was just disabled. */
  #toComposer(): void {
    this.renderRoot.querySelector('textarea')?.focus();
  }

  /** Moves the focus to `selector` (the text box by default) once rendered: the focused control is about to go. */
  #focusAfterUpdate(selector = 'textarea'): void {
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(selector)?.focus());
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

  #renderChat(): TemplateResult {
    const { strings } = this;
    const list = this.#list.state;
    const toolbar = renderToolbar(
      strings,
      list ? nothing : this.#handoff.button(strings),
      this.#list.available ? { shown: !!list, toggle: this.#list.handlers.toggle } : undefined,
    );
    if (list) {
      const { sessions, renaming, confirming } = list;
      const locale = this.locale || defaultLocale();
      const state = { strings, sessions, current: this.view.sessionId, renaming, confirming, locale };
      return html`${toolbar} ${renderConversations(this, state, this.#list.handlers)}`;
    }
    const connection = this.#connection;
    const { state, refusal, retryInSeconds } = connection;
    const composer = this.#composer;
    const { attachments } = composer;
    return html`${toolbar}
      ${renderStatusLine({ strings, state, refusal, retryInSeconds }, () => connection.retryNow())}
      ${this.#transcript.render(this.#scroll.stuck, this.#transcriptHandlers)}
      <div class="sr-only" aria-live="polite" aria-atomic="true">${this.#conversation.announcement}</div>
      ${renderChallenge(strings, this.#challenge.line)} ${this.#handoff.line(strings)}
      ${renderComposer(
        {
          strings,
          draft: composer.draft,
          running: this.view.turn !== null,
          stopping: this.#stop.pending,
          notice: composer.notice,
          placeholder: this.placeholder || strings.composerPlaceholder,
          attach: attachments.offer
            ? renderAttachButton(strings, attachments.offer.types, (files) => void composer.attach(files))
            : nothing,
          attachments: renderAttachments(attachments.items, strings, (key) => {
            attachments.remove(key);
            this.#focusAfterUpdate();
          }),
          hasAttachments: attachments.items.length > 0,
          dragging: composer.dragging,
        },
        composer.handlers,
      )} `;
  }

  #transcriptHandlers = {
    scroll: this.#scroll.onScroll,
    loadOlder: () => this.#conversation.loadOlder(),
    jump: this.#scroll.jump,
  };
}
