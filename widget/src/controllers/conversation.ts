/**
 * The conversation as the widget shows it, as a Lit ReactiveController. Every frame goes
 * through the shared reducer (@aalis/protocol) into `view`, so what shows is what the
 * server's frames say, after a reload or a reconnect too. What a frame means beyond the
 * view is decided here, in one switch: what a screen reader is told, which events fire,
 * and what the other concerns must do, which they are told through `ConversationHooks`
 * (this file knows none of them).
 *
 * It also keeps the view's pace: a long history shows its newest places first and the
 * older ones a chunk a frame, and a long streaming text its end first.
 */
import type { ReactiveController } from 'lit';
import {
  approvalList,
  clockOffset,
  emptyView,
  reduce,
  toServerTime,
  versionGroups,
  type ChatView,
  type ClientFrame,
  type ErrorFrame,
  type MessageError,
  type ReadyFrame,
  type ServerFrame,
  type SessionsFrame,
} from '@aalis/protocol/client';
import { approvalCards, nextMinuteIn } from '../components/approval/approvals.js';
import { ElicitationRequests } from '../components/elicitation/elicitation-requests.js';
import { plainText } from '../components/message/message.js';
import { ReasoningClock } from '../components/message/reasoning-clock.js';
import { shownStatus, turnStatusText } from '../components/turn-status/turn-status.js';
import { AalisErrorEvent, AalisMessageEvent, AalisToolApprovalEvent } from '../shared/events.js';
import { errorText, type Strings } from '../i18n/strings.js';
import { plainTextOf } from '../markdown/plain-text.js';
import type { MarkdownCache } from '../markdown/render.js';
import type { ViewHost } from '../shared/lazy-view.js';
import { onlyMovesACount, type RenderPacing } from './render-pacing.js';

/**
 * Places of the history shown per frame while a long history is first shown, newest
 * first: four (eight messages in markdown) stay under a long task on a slow machine.
 */
const HISTORY_CHUNK = 4;

/** Runs `fn` in a task after the next frame: once what is rendered now has been painted. */
const afterPaint = (fn: () => void): void => void requestAnimationFrame(() => setTimeout(fn));

export interface ConversationHost extends ViewHost, HTMLElement {
  readonly strings: Strings;
}

/** What the frames mean for the element's other concerns. */
export interface ConversationHooks {
  /** `ready`: `switched` when it is another session than the one shown before. */
  ready(frame: ReadyFrame, switched: boolean): void;
  /** The server's echo of a message this tab sent: it was accepted. */
  accepted(clientMessageId: string): void;
  /** The server refused something this tab sent (`error`). */
  refused(frame: ErrorFrame): void;
  /** The visitor's conversation list arrived. */
  sessions(frame: SessionsFrame): void;
  /** The open conversation was deleted, here or in another tab. */
  deleted(sessionId: string): void;
  /** A turn this tab saw running has ended. */
  answered(): void;
  /** Whether a new approval card may take the focus: the visitor sits in an empty composer. */
  mayFocusApproval(): boolean;
}

export class Conversation implements ReactiveController {
  #view: ChatView = emptyView;
  /** `localNow - serverTime`, from the last `ready` or `stream_resume`. */
  offset = 0;
  hasMore = false;
  /** Errors of the session's turn, kept as sent: their words follow the locale. */
  errors: MessageError[] = [];
  /** What the polite live region says: finished answers, tools, approvals, not every token. */
  announcement = '';
  /** The server's greeting (`ready`), used where no attribute or template says otherwise. */
  greeting: { welcome?: string; starters?: string[] } = {};
  /** The version each place shows, by the id of its first message; the latest when absent. */
  chosen = new Map<string, number>();
  /**
   * How many places of the history are shown, counted from the newest: a long history
   * shows its newest places first and the older ones a chunk a frame after, so that no
   * render of it is a long task.
   */
  shownPlaces = Infinity;
  /** Markdown caches of the running turn's text parts: only their last block is re-parsed. */
  caches = new Map<number, MarkdownCache>();
  readonly reasoning = new ReasoningClock();
  /** Calls decided here whose outcome has not arrived: their buttons stay disabled. */
  readonly decided = new Set<string>();
  /** Approval requests already announced (and evented), by call id: once each, reconnects included. */
  readonly #seenApprovals = new Set<string>();
  /** MCP servers' requests for the visitor's input: answered here, refused, announced. */
  readonly elicitations: ElicitationRequests;
  #revealing = false;
  #revealingText = false;
  /** Re-renders the approval cards when their minutes left change. */
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;

  readonly #host: ConversationHost;
  readonly #pacing: RenderPacing;
  readonly #send: (frame: ClientFrame) => boolean;
  readonly #hooks: ConversationHooks;

  constructor(
    host: ConversationHost,
    pacing: RenderPacing,
    send: (frame: ClientFrame) => boolean,
    hooks: ConversationHooks,
  ) {
    this.#host = host;
    this.#pacing = pacing;
    this.#send = send;
    this.#hooks = hooks;
    this.elicitations = new ElicitationRequests(host, send);
    host.addController(this);
  }

  /** The reducer's view of every frame received. */
  get view(): ChatView {
    return this.#view;
  }

  set view(view: ChatView) {
    this.#view = view;
    this.#host.requestUpdate();
  }

  /** The server's clock now. */
  serverNow(): number {
    return toServerTime(Date.now(), this.offset);
  }

  announce(text: string): void {
    this.announcement = text;
    this.#host.requestUpdate();
  }

  clearErrors(): void {
    this.errors = [];
    this.#host.requestUpdate();
  }

  /** Another conversation is asked for: what belonged to this one goes. */
  leave(): void {
    this.errors = [];
    this.#seenApprovals.clear();
    this.elicitations.leave();
    this.#host.requestUpdate();
  }

  /** A new, empty session replaces this one. */
  reset(): void {
    this.view = emptyView;
    this.leave();
  }

  choose(place: string, version: number): void {
    this.chosen = new Map(this.chosen).set(place, version);
    this.#host.requestUpdate();
  }

  /** Asks for the history before the oldest message shown. */
  loadOlder(): void {
    const oldest = this.view.messages[0];
    if (oldest) this.#send({ type: 'history', before: oldest.id });
  }

  /** Answers a waiting tool call, once: false when it is not waiting, was decided, or cannot be sent. */
  decide(callId: string, decision: 'approve' | 'deny', remember?: 'session'): boolean {
    const approval = this.view.turn?.approvals.get(callId);
    if (!approval || this.decided.has(callId)) return false;
    const remembered = remember && decision === 'approve' && approval.policy === 'session';
    if (!this.#send({ type: 'tool_decision', callId, decision, ...(remembered ? { remember } : {}) }))
      return false;
    this.decided.add(callId);
    this.#host.requestUpdate();
    return true;
  }

  hostUpdated(): void {
    // The cards say minutes left: render again when the count changes, not before.
    clearTimeout(this.#expiryTimer);
    const wait = this.view.turn && nextMinuteIn(this.view.turn.approvals.values(), this.serverNow());
    if (wait) this.#expiryTimer = setTimeout(() => this.#host.requestUpdate(), wait + 50);
    this.#revealText();
  }

  hostDisconnected(): void {
    clearTimeout(this.#expiryTimer);
  }

  receive(frame: ServerFrame): void {
    if (frame.type === 'ready' || frame.type === 'stream_resume') {
      this.offset = clockOffset(frame.serverTime, Date.now());
    }
    const before = this.view;
    const apply = () => (this.view = reduce(before, frame, this.serverNow()));
    const countOnly = onlyMovesACount(before, frame);
    if (countOnly) this.#pacing.count(apply);
    else apply();
    const { strings } = this.#host;
    switch (frame.type) {
      case 'ready':
        this.greeting = {
          ...(frame.welcome ? { welcome: frame.welcome } : {}),
          ...(frame.starters ? { starters: frame.starters } : {}),
        };
        this.#hooks.ready(frame, before.sessionId !== frame.sessionId);
        this.hasMore = frame.hasMore ?? false;
        this.#revealOlder();
        this.#startTurn();
        break;
      case 'history':
        this.hasMore = frame.hasMore;
        // Asked for: shown at once.
        this.shownPlaces = Infinity;
        break;
      case 'session_deleted':
        this.#hooks.deleted(frame.sessionId);
        break;
      case 'sessions':
        this.#hooks.sessions(frame);
        break;
      case 'user_message':
        if (frame.clientMessageId !== undefined) this.#hooks.accepted(frame.clientMessageId);
        // A new version shows at once: every place goes back to its latest.
        if (frame.message.replaces) this.chosen = new Map();
        // A message for the person answering starts no turn: a running one is not this one's.
        if (frame.message.toOperator) break;
        this.#startTurn();
        this.#seenApprovals.clear();
        break;
      case 'stream':
        this.reasoning.track(this.view.turn?.parts ?? []);
        break;
      case 'turn_status':
      case 'stream_resume': {
        if (frame.type === 'stream_resume') this.reasoning.joined(frame.parts);
        // Said once when the status changes; the line itself ticks unannounced. A wait is
        // said without its seconds (since = now): they would be stale by the time it is heard.
        const status = this.view.turn && shownStatus(this.view.turn);
        if (status && status !== before.turn?.status) {
          const now = status.state === 'waiting' ? status.since : this.serverNow();
          this.announcement = turnStatusText(status, strings, now);
        }
        break;
      }
      case 'tool_execute':
        if (frame.phase === 'start') this.announcement = strings.announceTool(frame.name);
        break;
      case 'message': {
        if (frame.message.role === 'operator') {
          // A person's reply ends no turn (no `aalis-message`), but it is news for a closed panel.
          const text = plainText(frame.message).slice(0, 200);
          this.announcement = strings.announceOperator(frame.message.author || strings.operator, text);
          this.#hooks.answered();
          break;
        }
        const { error } = frame.message;
        this.reasoning.finished(frame.message.id);
        this.caches = new Map();
        // Read aloud as words: "## Streaming | a | b |" would be read as its symbols.
        const reply = plainTextOf(plainText(frame.message)).slice(0, 200);
        const why = error && errorText(strings, error);
        this.announcement = [reply && strings.announceReply(reply), why].filter(Boolean).join(' ');
        // The bubble now says why the turn failed: the alert for it would say it twice.
        if (error) this.errors = this.errors.filter((e) => e.code !== error.code);
        if (before.turn) {
          this.#host.dispatchEvent(new AalisMessageEvent(frame.message));
          this.#hooks.answered();
        }
        this.#seenApprovals.clear();
        break;
      }
      case 'error':
        // A refused answer to a form is said at the form, not in the transcript nor the composer.
        if (!this.elicitations.refused(frame)) {
          this.#hooks.refused(frame);
          if (frame.sessionId) this.errors = [...this.errors, frame];
        }
        this.#host.dispatchEvent(new AalisErrorEvent(frame.code, frame.message, frame.errorId));
        break;
    }
    this.#trackApprovals();
    // The reducer keeps the map while no request comes or goes: nothing new to track.
    if (before.turn?.elicitations !== this.view.turn?.elicitations) {
      const asked = this.elicitations.track(this.view.turn, strings);
      if (asked) this.announcement = asked;
    }
    // What changed beside the view renders with it. Not after a frame that only moves a
    // card's count (it changes nothing else): that would wake the render it waits for.
    if (!countOnly) this.#host.requestUpdate();
  }

  /**
   * New approval requests are announced and evented once each; the focus moves to the
   * first one's Approve button only from an empty composer, never from elsewhere nor from
   * a visitor in mid-sentence (whose next space would approve). Decisions whose card is
   * gone are forgotten.
   */
  #trackApprovals(): void {
    const turn = this.view.turn;
    for (const callId of this.decided) if (!turn?.approvals.has(callId)) this.decided.delete(callId);
    const fresh = turn ? approvalList(turn).filter((a) => !this.#seenApprovals.has(a.callId)) : [];
    if (!fresh.length) return;
    for (const approval of fresh) {
      this.#seenApprovals.add(approval.callId);
      this.#host.dispatchEvent(new AalisToolApprovalEvent(approval));
    }
    this.announcement = fresh.map((a) => this.#host.strings.approvalAsk(a.name)).join(' ');
    if (!this.#hooks.mayFocusApproval()) return;
    const callId = fresh[0]!.callId;
    // Once the card shows: the first waits for its file (approvals.ts), and the visitor may
    // have started to write meanwhile.
    approvalCards.whenLoaded(this.#host, () => {
      const { renderRoot } = this.#host;
      void this.#host.updateComplete.then(
        () =>
          this.#hooks.mayFocusApproval() &&
          renderRoot
            .querySelector<HTMLElement>(
              `.approval-card[data-call-id="${CSS.escape(callId)}"] .approve-button`,
            )
            ?.focus(),
      );
    });
  }

  #startTurn(): void {
    this.caches = new Map();
    this.reasoning.joined(this.view.turn?.parts ?? []);
  }

  /** Shows more of a long text that rendered its end first (`MarkdownCache`), a piece a frame. */
  #revealText(): void {
    // After every render: a loop over the turn's few text parts, no array made.
    let partial = false;
    for (const cache of this.caches.values()) partial ||= cache.partial;
    if (this.#revealingText || !partial) return;
    this.#revealingText = true;
    afterPaint(() => {
      this.#revealingText = false;
      for (const cache of this.caches.values()) cache.revealMore();
      this.#host.requestUpdate();
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
    const afterFrame = () => void this.#host.updateComplete.then(() => afterPaint(next));
    const next = () => {
      const more = this.shownPlaces + HISTORY_CHUNK;
      const done = more >= places || this.shownPlaces === Infinity || !this.#host.isConnected;
      this.shownPlaces = done ? Infinity : more;
      this.#host.requestUpdate();
      if (done) this.#revealing = false;
      else afterFrame();
    };
    afterFrame();
  }
}
