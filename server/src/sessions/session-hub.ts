/**
 * Sessions, independent of any transport: who is connected to which session, each
 * session's stream buffer, and the turn it runs. The buffer is the protocol reducer's
 * view of exactly the frames the session's connections were sent, so a connection that
 * joins mid-turn gets `stream_resume` from it and continues where the others are.
 * Closing a connection never stops a turn; only `abort` (or shutdown) does.
 *
 * The hub is the facade the transport talks to; its parts each hold one concern: the
 * sessions in memory (session-registry.ts), frames to a session's peers
 * (session-broadcast.ts), turns (turn-runner.ts, running-turn.ts), approvals
 * (pending-approvals.ts), the visitor's conversation list (conversation-list.ts), and
 * what differs when other instances serve the same sessions (coordination.ts, with the
 * dead instances' turns in orphaned-turns.ts).
 */
import {
  Limits,
  type ElicitationAnswerFrame,
  type Feedback,
  type FeedbackFrame,
  type ServerFrame,
  type ToolApp,
} from '@aalis/protocol';
import { ErrorCode } from '@aalis/protocol';
import { forClients } from '../agent/stored-message.js';
import type { HistoryPage, HistoryStore } from '../history/store.js';
import { logErrorWithId } from '../util/log-error.js';
import { ConversationList, type ConversationChange } from './conversation-list.js';
import {
  hubSettings,
  type Greeting,
  type HubSettings,
  type Peer,
  type SessionHubOptions,
} from './hub-options.js';
import { OrphanedTurns } from './orphaned-turns.js';
import { mayOpen, ownerKey } from './owner.js';
import { questionAgain, sentQuestion } from './questions.js';
import { FrameJson, SessionBroadcast } from './session-broadcast.js';
import { newSessionId, SessionRegistry, type Session } from './session-registry.js';
import { TurnRunner } from './turn-runner.js';
import { HubHandoffs } from './hub-handoffs.js';

export type {
  Greeting,
  HubLogger,
  ImageAttachments,
  Peer,
  SessionHubOptions,
  TurnStart,
  TurnSummary,
} from './hub-options.js';

export class SessionHub {
  readonly #settings: HubSettings;
  readonly #registry: SessionRegistry;
  readonly #broadcast: SessionBroadcast;
  readonly #turns: TurnRunner;
  readonly #orphans: OrphanedTurns;
  readonly #conversations: ConversationList;
  readonly #stopSweeps: () => void;
  readonly #handoffs: HubHandoffs | undefined;

  constructor(options: SessionHubOptions) {
    const settings = hubSettings(options);
    this.#settings = settings;
    this.#registry = new SessionRegistry(settings.coordination);
    this.#broadcast = new SessionBroadcast(this.#registry, settings.coordination, settings.now);
    this.#orphans = new OrphanedTurns(settings, this.#registry, this.#broadcast);
    this.#turns = new TurnRunner(settings, this.#registry, this.#broadcast, this.#orphans);
    this.#conversations = new ConversationList(settings, this.#registry, this.#broadcast);
    this.#handoffs =
      settings.handoff &&
      new HubHandoffs(settings.handoff, this.#registry, this.#broadcast, settings.logger, settings.now);
    this.#stopSweeps = settings.coordination.scheduleOrphanSweeps((ownerGone) =>
      this.#turns.shuttingDown ? Promise.resolve() : this.#orphans.sweep(ownerGone),
    );
  }

  /**
   * Whether other instances serve the same sessions: a tab can then go on with its
   * session on another instance.
   */
  get clustered(): boolean {
    return this.#settings.coordination.shared;
  }

  /** Sessions with a turn running now. */
  get runningTurns(): number {
    return this.#registry.runningTurns;
  }

  /** Sessions held in memory now (with a connection or a running turn). */
  get sessionCount(): number {
    return this.#registry.size;
  }

  /**
   * Binds a peer to the session it asks for, or to a new one when that is unknown, and
   * sends it `ready` (and `stream_resume` while a turn runs). Resolves with the session id.
   * Writes nothing: a new session is stored with its first message, so `hello` costs an
   * abuser no row. Rejects when the store cannot be read; the peer is then not bound.
   */
  async hello(peer: Peer, requestedId: string | undefined, features?: readonly string[]): Promise<string> {
    if (features?.includes('operator')) this.#broadcast.operatorAware.add(peer);
    return (await this.#bind(peer, requestedId, false))!;
  }

  /**
   * `hello` for a session the client names (an AG-UI thread): one that does not exist yet
   * is made under that id; one another visitor owns is refused (null), never swapped for a
   * new one, since the client goes on using the id it named. `existing`: one that does not
   * exist is refused too, before anything is made or announced (a rejoin, a stop).
   */
  async helloNamed(peer: Peer, sessionId: string, existing = false): Promise<string | null> {
    return this.#bind(peer, sessionId, true, existing);
  }

  /**
   * The site's owner watching a conversation live (the console, admin/), whoever's it is:
   * `ready`, then its frames as a tab of it gets them, until `leave`. False when no such
   * conversation exists.
   */
  async watch(peer: Peer, sessionId: string): Promise<boolean> {
    this.#broadcast.operatorAware.add(peer);
    return (await this.#bind(peer, sessionId, true, true, true)) !== null;
  }

  async #bind(
    peer: Peer,
    requestedId: string | undefined,
    named: boolean,
    existing = false,
    asOwner = false,
  ): Promise<string | null> {
    const { store } = this.#settings;
    const owner = ownerKey(peer.visitor);
    // Another visitor's session is answered exactly as an unknown one: a new, empty
    // session, after the same store lookup, so ids cannot be probed.
    // The history down (its answer waiting in the keeper, say) does not keep a tab from a
    // turn this instance has live: its owner is known here, and the turn is in the buffer.
    const answering = requestedId === undefined ? undefined : this.#answering(requestedId);
    let historyDown = false;
    let stored: string | null | undefined;
    try {
      stored = requestedId === undefined ? undefined : await store.ownerOf(requestedId);
    } catch (error) {
      if (!answering) throw error;
      historyDown = true;
    }
    // A new session another instance made, with no message yet (a second tab elsewhere).
    if (stored === undefined && requestedId !== undefined) stored = await this.#announcedOwner(requestedId);
    let live = requestedId === undefined ? undefined : this.#registry.get(requestedId);
    // Deleted while tabs still had it open: as unknown as any deleted conversation.
    if (live?.deleted) {
      live = undefined;
      stored = undefined;
    }
    const exists = live !== undefined || stored !== undefined;
    const known = exists && (asOwner || mayOpen(live ? live.owner : stored!, owner));
    if (named && !known && (exists || existing)) return null;
    const sessionId = known || named ? requestedId! : newSessionId();
    // A stored session keeps its stored owner (null for one made before owners).
    const session = this.#registry.open(sessionId, known && !live ? stored! : owner);
    return this.#registry.holding(session, async () => {
      if (!known) await this.#announce(sessionId, owner);
      // Where the session's shared log stands first, then the history: a turn that ends
      // in between is in both, and a message given twice replaces itself (the reducer).
      await this.#follow(session);
      let page: HistoryPage = { messages: [], hasMore: false };
      for (let epoch = -1; known && epoch !== session.epoch;) {
        epoch = session.epoch;
        try {
          page = historyDown
            ? { messages: [], hasMore: true }
            : this.#bounded(await store.page(sessionId, { limit: this.#settings.historyPageSize }));
        } catch (error) {
          if (session !== answering) throw error;
          // The running turn comes in `stream_resume`; older messages page in once it is back.
          page = { messages: [], hasMore: true };
        }
      }
      // Read before the peer joins: nothing may reach it before its `ready`.
      const handoff = this.#handoffs ? await this.#handoffs.readyFields(sessionId, known) : {};
      session.peers.add(peer);
      const serverTime = this.#settings.now();
      this.#broadcast.toPeer(peer, {
        type: 'ready',
        sessionId,
        serverTime,
        messages: page.messages,
        resumed: known,
        hasMore: page.hasMore,
        // A newly issued anonymous visitor key, for the client to keep.
        ...(peer.visitor?.anonymousKey ? { anonymousKey: peer.visitor.anonymousKey } : {}),
        ...greetingFields(this.#settings.greeting),
        ...(this.#settings.images ? { uploads: this.#settings.images.uploadsFor(sessionId) } : {}),
        // A visitor the server knows has a conversation list; a shared token is no visitor.
        ...(owner !== null ? { conversations: true } : {}),
        ...handoff,
      });
      const resume = this.#broadcast.resume(session, serverTime);
      if (resume) this.#broadcast.toPeer(peer, resume);
      return sessionId;
    });
  }

  /** The session, when this instance holds a turn of it live (running or being answered elsewhere). */
  #answering(sessionId: string): Session | undefined {
    const live = this.#registry.get(sessionId);
    return live && !live.deleted && this.#registry.answering(live) ? live : undefined;
  }

  /**
   * The owner erased these sessions (the console, admin/): every tab that has one open
   * leaves it, and a turn running in one stops, on whichever instance runs it
   * (`session_deleted`, session-broadcast.ts). Once none runs (or `waitMs` passed), what
   * the coordination kept of them for other instances goes too.
   */
  async erased(sessionIds: readonly string[], waitMs = 10_000): Promise<void> {
    for (const sessionId of sessionIds)
      this.#broadcast.share(sessionId, { type: 'session_deleted', sessionId });
    const { coordination } = this.#settings;
    const deadline = Date.now() + waitMs;
    for (const sessionId of sessionIds)
      while (
        Date.now() < deadline &&
        (this.#registry.get(sessionId)?.turn || (await coordination.isRunning(sessionId)))
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
    await coordination.forget(sessionIds);
  }

  /** The peer's connection ended or moved to another session. */
  leave(peer: Peer, sessionId: string): void {
    this.#registry.leave(peer, sessionId);
  }

  /**
   * A user message: starts a turn, unless one runs (then `busy`, to this peer only). A
   * refusal echoes `clientMessageId`, so the client can give the text back to its author.
   */
  async send(
    peer: Peer,
    sessionId: string,
    text: string,
    clientMessageId?: string,
    imageIds: readonly string[] = [],
  ): Promise<void> {
    const { store, images } = this.#settings;
    const ask = () => sentQuestion(store, images, sessionId, text, imageIds);
    // While a person answers, the message is theirs: stored and shown, no turn.
    const route = await this.#handoffs?.route(peer, sessionId, clientMessageId);
    if (route === 'operator') return this.#handoffs!.toOperator(peer, sessionId, ask, clientMessageId);
    if (route !== 'refused') return this.#turns.start(peer, sessionId, clientMessageId, ask);
  }

  /**
   * The last exchange again, as a new version of it: a new answer to the last question
   * (`regenerate`: `messageId` is the last answer), or the last question rewritten (`edit`:
   * `messageId` is the last question, `text` the new one). The question goes out as a new
   * user message that `replaces` the earlier one, then the turn runs like any other.
   */
  async again(
    peer: Peer,
    sessionId: string,
    request: { messageId: string; text?: string },
    clientMessageId?: string,
  ): Promise<void> {
    const route = await this.#handoffs?.route(peer, sessionId, clientMessageId);
    if (route === 'operator') return this.#handoffs!.refuseAgain(peer, clientMessageId);
    if (route !== 'refused')
      return this.#turns.start(peer, sessionId, clientMessageId, () =>
        questionAgain(this.#settings.store, sessionId, request),
      );
  }

  /** The visitor asks for a person (`handoff`, PROTOCOL.md section 8). */
  async requestHandoff(peer: Peer, sessionId: string, reason?: string): Promise<void> {
    if (!this.#handoffs)
      return this.#broadcast.toPeer(peer, {
        type: 'error',
        code: ErrorCode.BadFrame,
        message: 'handoff: this chat offers no person to talk to',
      });
    return this.#handoffs.request(peer, sessionId, reason);
  }

  /** The console's side of a handoff (admin/): a person's replies, the release, watching live. */
  get handoffs(): HubHandoffs | undefined {
    return this.#handoffs;
  }

  /** Stops the session's running turn, if any (on whichever instance runs it): the model request and its tools are cancelled. */
  abort(sessionId: string): void {
    this.#turns.abort(sessionId);
  }

  /**
   * A user's answer to a tool call's approval request, from any tab of the session. The
   * first decision wins; one for a call that no longer waits changes nothing (every tab
   * already has, or soon gets, the outcome as the call's `tool_execute`).
   */
  decide(sessionId: string, callId: string, decision: 'approve' | 'deny', remember?: 'session'): void {
    this.#turns.decide(sessionId, { callId, decision, ...(remember ? { remember } : {}) });
  }

  /**
   * A visitor's answer to an MCP server's request for input, from any tab of the session.
   * The first that fits wins (every tab then gets `elicitation_settled`); one that does not
   * fit its form, or comes for a request no longer open, gets an `error` here alone.
   */
  answerElicitation(peer: Peer, sessionId: string, frame: ElicitationAnswerFrame): void {
    const { type: _type, ...answer } = frame;
    const outcome = this.#turns.answerElicitation(sessionId, answer);
    if (outcome.ok) return;
    this.#broadcast.toPeer(peer, {
      type: 'error',
      code: outcome.code,
      message: outcome.message,
      elicitationId: frame.elicitationId,
    });
  }

  /**
   * The MCP App of tool call `callId` of the session: in the running turn, or in the
   * recent history (an app shown again after a reload). Undefined when the session has no
   * such call, or its tool has no app.
   */
  async toolApp(sessionId: string, callId: string): Promise<ToolApp | undefined> {
    const appOf = (parts: readonly { type: string; callId?: string; app?: ToolApp }[]) =>
      parts.find((part) => part.type === 'tool_call' && part.callId === callId)?.app;
    const session = this.#registry.get(sessionId);
    const known = (session?.view.turn && appOf(session.view.turn.parts)) ?? session?.apps?.get(callId);
    if (known) return known;
    const { messages } = await this.#settings.store.page(sessionId, {
      limit: this.#settings.contextMessages,
    });
    const app = messages.map((message) => appOf(message.parts)).find((found) => found !== undefined);
    if (app && session) (session.apps ??= new Map()).set(callId, app);
    return app;
  }

  /**
   * A visitor's verdict on an answer of the session: kept with it, counted, and told to
   * every tab of the session, on every instance. An answer the session does not have is a
   * `bad_frame`; a store that fails says so, and keeps nothing.
   */
  async feedback(peer: Peer, sessionId: string, frame: FeedbackFrame): Promise<void> {
    const comment = frame.comment?.trim();
    const feedback: Feedback = comment ? { rating: frame.rating, comment } : { rating: frame.rating };
    const refuse = (code: string, message: string, errorId?: string) =>
      this.#broadcast.toPeer(peer, {
        type: 'error',
        code,
        message,
        ...(errorId === undefined ? {} : { errorId }),
      });
    let kept: Awaited<ReturnType<HistoryStore['setFeedback']>>;
    try {
      kept = await this.#settings.store.setFeedback(sessionId, frame.messageId, feedback);
    } catch (error) {
      return refuse(
        ErrorCode.Storage,
        'your feedback could not be saved',
        logErrorWithId(this.#settings.logger, error, 'storing feedback failed'),
      );
    }
    if (!kept) return refuse(ErrorCode.BadFrame, 'feedback: this conversation has no such answer');
    // A new verdict is counted; a comment on the same one, or the same thumb again, is not.
    if (kept.before?.rating !== feedback.rating) this.#settings.onFeedback(feedback.rating);
    const told: ServerFrame = { type: 'feedback', sessionId, messageId: frame.messageId, ...feedback };
    this.#broadcast.share(sessionId, told);
  }

  /**
   * The visitor's conversations, for its list: `rename` names one and `remove` deletes one
   * (never one that answers now, on any instance) first. Only the visitor's own sessions
   * are ever touched or listed; a connection without a visitor identity has none.
   */
  async conversations(
    peer: Peer,
    change?: ConversationChange,
    limit: number = Limits.sessionList,
  ): Promise<void> {
    return this.#conversations.answer(peer, change, limit);
  }

  /** Older history for one peer. */
  async history(peer: Peer, sessionId: string, before: string, limit: number): Promise<void> {
    const page = this.#bounded(await this.#settings.store.page(sessionId, { limit, before }));
    this.#broadcast.toPeer(peer, {
      type: 'history',
      sessionId,
      messages: page.messages,
      hasMore: page.hasMore,
    });
  }

  /**
   * Stops taking turns, lets the running ones finish for up to `drainMs`, then stops
   * those left (their clients get `shutting_down`) and waits a while for their final
   * messages to be stored. Called again meanwhile, it stops them at once.
   */
  async shutdown(): Promise<void> {
    this.#stopSweeps();
    await this.#turns.shutdown();
  }

  /** The newest messages of a page that fit in `maxPageBytes` (always at least one). */
  #bounded(stored: HistoryPage): HistoryPage {
    const page = { ...stored, messages: stored.messages.map(forClients) };
    let bytes = 0;
    let start = page.messages.length;
    while (start > 0) {
      bytes += Buffer.byteLength(JSON.stringify(page.messages[start - 1]));
      if (bytes > this.#settings.maxPageBytes && start < page.messages.length) break;
      start--;
    }
    if (start === 0) return page;
    return { messages: page.messages.slice(start), hasMore: true };
  }

  /** The owner of a new session another instance announced; unknown when that cannot be asked. */
  async #announcedOwner(sessionId: string): Promise<string | null | undefined> {
    try {
      return await this.#settings.coordination.announcedOwner(sessionId);
    } catch (error) {
      logErrorWithId(this.#settings.logger, error, 'asking the other instances for a new session failed');
      return undefined;
    }
  }

  /**
   * Makes a new session known to the other instances. Failing (Redis down) costs only
   * that: a second tab elsewhere would start its own empty session.
   */
  async #announce(sessionId: string, owner: string | null): Promise<void> {
    try {
      await this.#settings.coordination.announce(sessionId, owner);
    } catch (error) {
      logErrorWithId(this.#settings.logger, error, 'announcing a new session to the other instances failed');
    }
  }

  /**
   * Makes sure the other instances' frames of the session reach this one, a running
   * turn's snapshot first. Once per session in memory.
   */
  #follow(session: Session): Promise<void> {
    session.followed ??= this.#settings.coordination.follow(session.id, {
      // Frames other instances published, in order, delivered as they came.
      frames: (frames) => {
        for (const { frame, text } of frames)
          this.#broadcast.take(session, frame, new FrameJson(frame, text));
      },
      ownerGone: (turnId) => void this.#orphans.end(session, turnId),
      ownerLate: (turnId) => this.#orphans.late(session, turnId),
      ownerBack: (turnId) => this.#orphans.back(session, turnId),
    });
    return session.followed;
  }
}

/** The greeting's fields for `ready`: only those the owner set. */
function greetingFields({ welcome, starters }: Greeting): Greeting {
  return { ...(welcome ? { welcome } : {}), ...(starters?.length ? { starters } : {}) };
}
