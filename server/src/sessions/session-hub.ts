/**
 * Sessions, independent of any transport: who is connected to which session, each
 * session's stream buffer, and the turn it runs. The buffer is the protocol reducer's
 * view of exactly the frames the session's connections were sent, so a connection that
 * joins mid-turn gets `stream_resume` from it and continues where the others are.
 * Closing a connection never stops a turn; only `abort` (or shutdown) does.
 */
import type { ImageAttachments } from '../images/attachments.js';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ErrorCode,
  Limits,
  emptyView,
  reduce,
  snapshot,
  type ChatMessage,
  type ChatView,
  type Feedback,
  type FeedbackFrame,
  type ImageRef,
  type ServerFrame,
  type StreamChunkMessage,
  type Usage,
} from '@aalis/protocol';
import { forClients } from '../agent/stored-message.js';
import { textOf } from '../agent/model-messages.js';
import type { Agent, TurnError } from '../agent/agent.js';
import { Budgets } from '../budgets/budgets.js';
import { turnTokens } from '../budgets/turn-tokens.js';
import type { HistoryPage, HistoryStore } from '../history/store.js';
import { logErrorWithId } from '../util/log-error.js';
import { mayOpen, ownerKey } from './owner.js';
import { PendingApprovals } from './pending-approvals.js';
import type { ApprovalDecision, ClusterTurn, SessionCluster } from './session-cluster.js';
import { Workspaces } from '../tools/workspace.js';
import {
  DEFAULT_MAX_PAGE_BYTES,
  DEFAULT_MAX_TOOL_ARGUMENT_CHARS,
  DEFAULT_MAX_TURN_CHARS,
} from '../agent/limits.js';

/** A connection as the hub sees it. */
export interface Peer {
  readonly id: string;
  /**
   * Who is on the other end, when the server verifies visitors: the sessions a visitor
   * (signed or anonymous) makes are theirs alone (sessions/owner.ts).
   */
  readonly visitor?:
    | { readonly id: string; readonly kind: 'signed' | 'anonymous'; readonly anonymousKey?: string }
    | undefined;
  /** Sends one frame; `text` is its JSON, made once for every peer of a broadcast. */
  deliver(frame: ServerFrame, text: string): void;
}

export interface HubLogger {
  info(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** What a site owner says to a visitor before the first message (configuration `welcome`, `starters`). */
export type { ImageAttachments };

export interface Greeting {
  welcome?: string;
  starters?: string[];
}

export interface SessionHubOptions {
  agent: Agent;
  store: HistoryStore;
  logger: HubLogger;
  workspaces?: Workspaces;
  now?: () => number;
  /** Messages `ready` carries; older ones are paged with `history`. */
  historyPageSize?: number;
  /** The owner's greeting and starter prompts, sent in every `ready` (shown while a conversation is empty). */
  greeting?: Greeting;
  /**
   * Images visitors may attach, when the model reads them: `ready` carries the session's
   * upload ticket (images/upload-ticket.ts), and a `send` names at most `maxCount` of the
   * session's uploads. Without it a `send` with images is refused (`images_unsupported`).
   */
  images?: ImageAttachments;
  /** Stored messages the model sees as context for a new turn. */
  contextMessages?: number;
  /** Text, reasoning and tool-call arguments one turn may stream before it is stopped. */
  maxTurnChars?: number;
  /** Arguments one tool call may have; a longer call is cut off and never runs. */
  maxToolArgumentChars?: number;
  /**
   * Most bytes of messages one `ready` or `history` frame carries (at least one message
   * always): a tab must be able to join a session however large its answers were.
   */
  maxPageBytes?: number;
  /** How long shutdown waits for running turns to store their final message. */
  shutdownGraceMs?: number;
  /**
   * Hears every turn as it ends, with what the `turn ended` log line says (for metrics:
   * observability/metrics.ts). A listener that throws is logged; the turn is not affected.
   */
  onTurnEnded?: (summary: TurnSummary) => void;
  /** Hears every verdict a visitor gave an answer (the metrics count them). */
  onFeedback?: (rating: Feedback['rating']) => void;
  /** What visitors and the server may spend (budgets/budgets.ts); none by default. */
  budgets?: Budgets;
  /**
   * Several instances serving the same sessions (session-cluster.ts); without it this
   * hub is the only one.
   */
  cluster?: SessionCluster;
}

/** A question a turn starts from: its text, the images it names, the question it replaces. */
interface Question {
  text: string;
  images?: ImageRef[];
  replaces?: string;
}

/** Why a question cannot be asked: the `error` frame's code and words. */
interface Refusal {
  refused: string;
  message: string;
}
/** A question's images, as a field to spread into another question. */
const imagesField = ({ images }: ChatMessage): Pick<Question, 'images'> => (images?.length ? { images } : {});
const badFrame = (message: string): Refusal => ({ refused: ErrorCode.BadFrame, message });
const noImages = (message: string): Refusal => ({ refused: ErrorCode.ImagesUnsupported, message });

/** A turn that ended, as `onTurnEnded` hears it. No session id: it is the key to a conversation. */
export interface TurnSummary {
  /** The answer's message id. */
  messageId: string;
  status: ChatMessage['status'];
  ms: number;
  /** Time to the first chunk of the model; null when none came. */
  firstChunkMs: number | null;
  tools: number;
  chars: number;
  /** The provider's token counts, summed over the turn's rounds; absent when it gave none. */
  usage?: Usage;
  /** The codes of the `error` frames the turn ended with (its own, then storage's). */
  errors: string[];
}

interface RunningTurn {
  /** The turn's id: its user message's id (the history's running mark, the cluster's lease). */
  id: string;
  controller: AbortController;
  /** Its lease when instances share sessions: every frame is published under it. */
  lease?: ClusterTurn;
  startedAt: number;
  firstChunkAt?: number;
  chars: number;
  /** The round's tool calls by index: arguments seen so far (absolute, as progress says). */
  argumentChars: Map<number, number>;
  tools: number;
  stopReason?: TurnError;
  /** Who sent it: its tokens count against their budget when it ends. */
  visitor: Peer['visitor'];
  /** Its tool calls waiting for a user's decision. */
  approvals: PendingApprovals;
  finished: Promise<void>;
}

interface Session {
  id: string;
  /** The signed visitor it belongs to; null for a session anyone holding its id may open. */
  owner: string | null;
  peers: Set<Peer>;
  /** The stream buffer: the running turn as the reducer sees it (history lives in the store). */
  view: ChatView;
  /** The turn this instance runs. */
  turn?: RunningTurn;
  /** Counts frames that change the history (`user_message`, `message`): a hello's read retries when it moved. */
  epoch: number;
  /** Hellos and sends between their first await and their end: the session stays in memory meanwhile. */
  pending: number;
  /** A send of this instance is claiming the turn: a second one meanwhile is `busy`. */
  claiming: boolean;
  /** Set once the cluster delivers the session's frames to this instance. */
  followed?: Promise<void>;
  /**
   * Its owner deleted it: kept in memory (with its owner) only until its tabs leave, so
   * that no turn starts in it and no hello finds it.
   */
  deleted?: boolean;
}

/** 128 random bits: a session id is the only key to a conversation, so it must not be guessable. */
const newSessionId = (): string => randomBytes(16).toString('base64url');

export class SessionHub {
  readonly #sessions = new Map<string, Session>();
  readonly #options: Required<Omit<SessionHubOptions, 'cluster' | 'images'>>;
  readonly #images: ImageAttachments | undefined;
  readonly #cluster: SessionCluster | undefined;
  /** With a cluster: the look for turns whose owner died with no tab left (#sweep). */
  readonly #sweeper: NodeJS.Timeout | undefined;
  #sweeping = false;
  #shuttingDown = false;

  constructor(options: SessionHubOptions) {
    this.#options = {
      workspaces: new Workspaces(),
      now: Date.now,
      historyPageSize: 50,
      contextMessages: 100,
      maxTurnChars: DEFAULT_MAX_TURN_CHARS,
      maxToolArgumentChars: DEFAULT_MAX_TOOL_ARGUMENT_CHARS,
      maxPageBytes: DEFAULT_MAX_PAGE_BYTES,
      shutdownGraceMs: 5_000,
      greeting: {},
      onTurnEnded: () => {},
      onFeedback: () => {},
      budgets: new Budgets(),
      ...options,
    };
    this.#cluster = options.cluster;
    this.#images = options.images;
    if (this.#cluster) {
      this.#sweeper = setInterval(() => void this.#sweep(), this.#cluster.sweepEveryMs);
      this.#sweeper.unref();
    }
    const { agent } = this.#options;
    agent.on('outbound:stream', (chunk) => {
      const turn = this.#sessions.get(chunk.sessionId)?.turn;
      if (turn) this.#count(turn, chunk);
      this.#broadcast(chunk.sessionId, { type: 'stream', ...chunk });
    });
    agent.on('turn:status', (status) =>
      this.#broadcast(status.sessionId, { type: 'turn_status', ...status }),
    );
    agent.on('tool:execute', (event) => {
      const turn = this.#sessions.get(event.sessionId)?.turn;
      if (turn && event.phase === 'start') turn.tools++;
      this.#broadcast(event.sessionId, { type: 'tool_execute', ...event });
    });
  }

  /** Sessions with a turn running now. */
  get runningTurns(): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.turn) count++;
    return count;
  }

  /** Sessions held in memory now (with a connection or a running turn). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Binds a peer to the session it asks for, or to a new one when that is unknown, and
   * sends it `ready` (and `stream_resume` while a turn runs). Resolves with the session id.
   * Writes nothing: a new session is stored with its first message, so `hello` costs an
   * abuser no row. Rejects when the store cannot be read; the peer is then not bound.
   */
  async hello(peer: Peer, requestedId: string | undefined): Promise<string> {
    const { store, now } = this.#options;
    const owner = ownerKey(peer.visitor);
    // Another visitor's session is answered exactly as an unknown one: a new, empty
    // session, after the same store lookup, so ids cannot be probed.
    let stored = requestedId === undefined ? undefined : await store.ownerOf(requestedId);
    // A new session another instance made, with no message yet (a second tab elsewhere).
    if (stored === undefined && requestedId !== undefined) stored = await this.#announcedOwner(requestedId);
    let live = requestedId === undefined ? undefined : this.#sessions.get(requestedId);
    // Deleted while tabs still had it open: as unknown as any deleted conversation.
    if (live?.deleted) {
      live = undefined;
      stored = undefined;
    }
    const exists = live !== undefined || stored !== undefined;
    const known = exists && mayOpen(live ? live.owner : stored!, owner);
    const sessionId = known ? requestedId! : newSessionId();
    // A stored session keeps its stored owner (null for one made before owners).
    const session = this.#session(sessionId, known && !live ? stored! : owner);
    session.pending++;
    try {
      if (!known) await this.#announce(sessionId, owner);
      // Where the session's shared log stands first, then the history: a turn that ends
      // in between is in both, and a message given twice replaces itself (the reducer).
      await this.#follow(session);
      let page: HistoryPage = { messages: [], hasMore: false };
      for (let epoch = -1; known && epoch !== session.epoch;) {
        epoch = session.epoch;
        page = this.#bounded(await store.page(sessionId, { limit: this.#options.historyPageSize }));
      }
      session.peers.add(peer);
      const serverTime = now();
      this.#deliver(peer, {
        type: 'ready',
        sessionId,
        serverTime,
        messages: page.messages,
        resumed: known,
        hasMore: page.hasMore,
        // A newly issued anonymous visitor key, for the client to keep.
        ...(peer.visitor?.anonymousKey ? { anonymousKey: peer.visitor.anonymousKey } : {}),
        ...greetingFields(this.#options.greeting),
        ...(this.#images ? { uploads: this.#images.uploadsFor(sessionId) } : {}),
        // A visitor the server knows has a conversation list; a shared token is no visitor.
        ...(owner !== null ? { conversations: true } : {}),
      });
      const resume = snapshot(session.view, serverTime);
      if (resume) this.#deliver(peer, resume);
      return sessionId;
    } finally {
      session.pending--;
      this.#forgetIfIdle(session);
    }
  }

  /** The peer's connection ended or moved to another session. */
  leave(peer: Peer, sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    session.peers.delete(peer);
    this.#forgetIfIdle(session);
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
    return this.#turnFrom(peer, sessionId, clientMessageId, async () => {
      if (!imageIds.length) return text.trim() ? { text } : badFrame('send: the message is empty');
      const images = await this.#attached(sessionId, imageIds);
      return 'refused' in images ? images : { text, images };
    });
  }

  /**
   * The uploads a `send` names, in its order: each must be one of this session's, and no
   * more than the limit. Any other id is refused like an unknown one, so that another
   * session's ids cannot be probed.
   */
  async #attached(sessionId: string, ids: readonly string[]): Promise<ImageRef[] | Refusal> {
    const attachments = this.#images;
    if (!attachments) return noImages('this model cannot read images: send the message without them');
    if (ids.length > attachments.maxCount)
      return noImages(`at most ${attachments.maxCount} images can be sent with one message`);
    // What they are, not their bytes (those are read once, when the turn runs).
    const unique = [...new Set(ids)];
    const found = new Map(
      (await this.#options.store.imageRefs(sessionId, unique)).map((ref) => [ref.id, ref]),
    );
    if (found.size !== unique.length) return noImages('an image was not found: attach it again');
    return unique.map((id) => found.get(id)!);
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
    return this.#turnFrom(peer, sessionId, clientMessageId, async () => {
      const last = (await this.#options.store.page(sessionId, { limit: 2 })).messages;
      const question = last.findLast((m) => m.role === 'user');
      if (!question) return badFrame('this conversation has no question to ask again');
      if (request.text === undefined) {
        const answer = last.at(-1);
        if (answer?.role !== 'assistant' || answer.id !== request.messageId)
          return badFrame('regenerate: only the last answer can be regenerated');
        return { text: textOf(question.parts, 'text'), ...imagesField(question), replaces: question.id };
      }
      if (question.id !== request.messageId) return badFrame('edit: only the last question can be edited');
      // The rewritten question keeps the images the first one was asked about.
      return { text: request.text, ...imagesField(question), replaces: question.id };
    });
  }

  /**
   * Claims the session for a turn (one at a time: else `busy`), then starts it with the
   * question `ask` gives (asked once claimed), or refuses with why `ask` says it cannot be asked.
   */
  async #turnFrom(
    peer: Peer,
    sessionId: string,
    clientMessageId: string | undefined,
    ask: () => Promise<Question | Refusal>,
  ): Promise<void> {
    const session = this.#session(sessionId);
    const refuse = (code: string, message: string, errorId?: string, more?: object) =>
      this.#deliver(peer, {
        type: 'error',
        code,
        message,
        ...(errorId === undefined ? {} : { errorId }),
        ...more,
        ...(clientMessageId === undefined ? {} : { clientMessageId }),
      });
    if (this.#shuttingDown) {
      return refuse(ErrorCode.ShuttingDown, 'the server is restarting; send again in a moment');
    }
    if (session.deleted) return refuse(ErrorCode.BadFrame, 'this conversation was deleted: start a new one');
    const busy = () => refuse(ErrorCode.Busy, 'a turn is still running: wait for it to end, or stop it');
    if (session.turn || session.claiming) return busy();
    session.claiming = true;
    session.pending++;
    try {
      await this.#start(session, peer, ask, clientMessageId, refuse, busy);
    } finally {
      session.claiming = false;
      session.pending--;
      this.#forgetIfIdle(session);
    }
  }

  async #start(
    session: Session,
    peer: Peer,
    ask: () => Promise<Question | Refusal>,
    clientMessageId: string | undefined,
    refuse: (code: string, message: string, errorId?: string, more?: object) => void,
    busy: () => void,
  ): Promise<void> {
    const sessionId = session.id;
    // Budgets: the visitor's turns per hour and tokens per day (`quota_exceeded`), the
    // server's tokens per day and turns at once (`overloaded`), with when to try again.
    const overBudget = await this.#overBudget(peer);
    if (overBudget) {
      const { code, message, ...more } = overBudget;
      return refuse(code, message, undefined, more);
    }
    const { store, now } = this.#options;
    const turnId = `msg_${randomUUID()}`;
    const controller = new AbortController();
    // Set once the turn has its approval desk; a decision cannot come before its request.
    const desk: { approvals?: PendingApprovals } = {};
    let lease: ClusterTurn | undefined;
    if (this.#cluster) {
      let claimed: ClusterTurn | 'busy';
      try {
        // A stop that comes before the turn exists still stops it.
        claimed = await this.#cluster.claim(sessionId, turnId, {
          abort: () => controller.abort(),
          decide: (d) => desk.approvals?.decide(d.callId, d.decision, d.remember),
        });
      } catch (error) {
        const errorId = this.#logError(error, 'claiming the turn failed: the shared state cannot be reached');
        return refuse(
          ErrorCode.Unavailable,
          'the server cannot start an answer right now: send again in a moment',
          errorId,
        );
      }
      if (claimed === 'busy') return busy();
      lease = claimed;
    }
    // Asked once the turn is claimed (on every instance): what it checks (the last
    // exchange, for regenerate and edit) cannot change before the turn begins.
    let question: Question | Refusal;
    try {
      question = await ask();
    } catch (error) {
      void lease?.release();
      const errorId = this.#logError(error, 'reading the history failed');
      return refuse(ErrorCode.Storage, 'the conversation could not be read: try again in a moment', errorId);
    }
    if ('refused' in question) {
      void lease?.release();
      return refuse(question.refused, question.message);
    }
    const { text, images, replaces } = question;
    const startedAt = now();
    const userMessage: ChatMessage = {
      id: turnId,
      role: 'user',
      parts: [{ type: 'text', text }],
      createdAt: startedAt,
      ...(replaces ? { replaces } : {}),
      ...(images?.length ? { images } : {}),
    };
    try {
      await store.beginTurn(sessionId, userMessage, startedAt, session.owner);
    } catch (error) {
      void lease?.release();
      const errorId = this.#logError(error, 'storing the message failed');
      return refuse(ErrorCode.Storage, 'your message could not be saved: send it again in a moment', errorId);
    }
    const approvals = await this.#approvalsFor(sessionId);
    desk.approvals = approvals;
    const turn: RunningTurn = {
      id: turnId,
      controller,
      ...(lease ? { lease } : {}),
      startedAt,
      chars: 0,
      argumentChars: new Map(),
      tools: 0,
      approvals,
      visitor: peer.visitor,
      finished: Promise.resolve(),
    };
    session.turn = turn;
    if (this.#shuttingDown) {
      turn.stopReason = {
        code: ErrorCode.ShuttingDown,
        message: 'the server restarted and stopped this answer',
      };
      controller.abort();
    }
    await this.#spend(() => this.#options.budgets.turnAccepted(peer.visitor));
    this.#broadcast(sessionId, {
      type: 'user_message',
      sessionId,
      message: userMessage,
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
    });
    turn.finished = this.#run(session, turn);
  }

  /** Stops the session's running turn, if any (on whichever instance runs it): the model request and its tools are cancelled. */
  abort(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (session?.turn) return session.turn.controller.abort();
    const remoteTurn = session && this.#remoteTurn(session);
    if (remoteTurn && this.#cluster) {
      this.#cluster
        .requestAbort(sessionId, remoteTurn)
        .catch((error: unknown) =>
          this.#logError(error, 'passing a stop to the instance running the turn failed'),
        );
    }
  }

  /**
   * A user's answer to a tool call's approval request, from any tab of the session. The
   * first decision wins; one for a call that no longer waits changes nothing (every tab
   * already has, or soon gets, the outcome as the call's `tool_execute`).
   */
  decide(sessionId: string, callId: string, decision: 'approve' | 'deny', remember?: 'session'): void {
    const session = this.#sessions.get(sessionId);
    if (session?.turn) {
      session.turn.approvals.decide(callId, decision, remember);
      return;
    }
    const cluster = this.#cluster;
    if (cluster && session && this.#remoteTurn(session)) {
      const passed: ApprovalDecision = { callId, decision, ...(remember ? { remember } : {}) };
      cluster
        .passDecision(sessionId, passed)
        .catch((error: unknown) =>
          this.#logError(error, 'passing a decision to the instance running the turn failed'),
        );
    }
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
      this.#deliver(peer, { type: 'error', code, message, ...(errorId === undefined ? {} : { errorId }) });
    let kept: Awaited<ReturnType<HistoryStore['setFeedback']>>;
    try {
      kept = await this.#options.store.setFeedback(sessionId, frame.messageId, feedback);
    } catch (error) {
      return refuse(
        ErrorCode.Storage,
        'your feedback could not be saved',
        this.#logError(error, 'storing feedback failed'),
      );
    }
    if (!kept) return refuse(ErrorCode.BadFrame, 'feedback: this conversation has no such answer');
    // A new verdict is counted; a comment on the same one, or the same thumb again, is not.
    if (kept.before?.rating !== feedback.rating) this.#options.onFeedback(feedback.rating);
    const told: ServerFrame = { type: 'feedback', sessionId, messageId: frame.messageId, ...feedback };
    const text = JSON.stringify(told);
    const session = this.#sessions.get(sessionId);
    if (session) this.#take(session, told, text);
    this.#cluster?.share(sessionId, text);
  }

  /**
   * The visitor's conversations, for its list: `rename` names one and `remove` deletes one
   * (never one that answers now, on any instance) first. Only the visitor's own sessions
   * are ever touched or listed; a connection without a visitor identity has none.
   */
  async conversations(
    peer: Peer,
    change?: { rename: { sessionId: string; title: string } } | { remove: string },
    limit: number = Limits.sessionList,
  ): Promise<void> {
    const owner = ownerKey(peer.visitor);
    const refuse = (code: string, message: string, errorId?: string) =>
      this.#deliver(peer, { type: 'error', code, message, ...(errorId === undefined ? {} : { errorId }) });
    if (owner === null) {
      if (change)
        return refuse(
          ErrorCode.BadFrame,
          'conversations belong to visitors: this server has no visitor identity',
        );
      return this.#deliver(peer, { type: 'sessions', sessions: [] });
    }
    const { store } = this.#options;
    try {
      if (change && 'rename' in change) {
        const { sessionId } = change.rename;
        const title = change.rename.title.replace(/\s+/g, ' ').trim();
        if (!title) return refuse(ErrorCode.BadFrame, 'rename_session: a name needs a word');
        if (!(await store.renameSession(owner, sessionId, title)))
          return refuse(ErrorCode.BadFrame, 'rename_session: no such conversation of yours');
      } else if (change) {
        const session = this.#sessions.get(change.remove);
        if (session && (session.turn || session.claiming || this.#remoteTurn(session)))
          return refuse(ErrorCode.Busy, 'delete_session: the conversation is answering; stop it first');
        // Claimed while it goes (from before the first await): no send of this instance
        // starts a turn in it meanwhile.
        if (session) session.claiming = true;
        let deleted: boolean;
        try {
          // A turn another instance runs, which this one may not follow.
          if (await this.#cluster?.isRunning(change.remove))
            return refuse(ErrorCode.Busy, 'delete_session: the conversation is answering; stop it first');
          deleted = await store.deleteSession(owner, change.remove);
        } finally {
          if (session) session.claiming = false;
        }
        if (!deleted)
          return refuse(
            ErrorCode.BadFrame,
            'delete_session: no such conversation of yours, or it is answering',
          );
        // Every tab that has it open leaves it, here and on the other instances.
        const gone: ServerFrame = { type: 'session_deleted', sessionId: change.remove };
        const text = JSON.stringify(gone);
        if (session) this.#take(session, gone, text);
        this.#cluster?.share(change.remove, text);
      }
      this.#deliver(peer, { type: 'sessions', sessions: await store.listSessions(owner, limit) });
    } catch (error) {
      refuse(
        ErrorCode.Storage,
        'your conversations could not be read or changed',
        this.#logError(error, 'conversations failed'),
      );
    }
  }

  /** Older history for one peer. */
  async history(peer: Peer, sessionId: string, before: string, limit: number): Promise<void> {
    const page = this.#bounded(await this.#options.store.page(sessionId, { limit, before }));
    this.#deliver(peer, { type: 'history', sessionId, messages: page.messages, hasMore: page.hasMore });
  }

  /**
   * Stops taking turns, stops the running ones (their clients get `shutting_down`), and
   * waits a while for their final messages to be stored.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    clearInterval(this.#sweeper);
    const running = [...this.#sessions.values()].flatMap((s) => (s.turn ? [s.turn] : []));
    for (const turn of running) {
      turn.stopReason = {
        code: ErrorCode.ShuttingDown,
        message: 'the server restarted and stopped this answer',
      };
      turn.controller.abort();
    }
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.#options.shutdownGraceMs).unref());
    await Promise.race([Promise.all(running.map((t) => t.finished)), grace]);
  }

  async #run(session: Session, turn: RunningTurn): Promise<void> {
    const { agent, store, now, logger, workspaces, contextMessages } = this.#options;
    const sessionId = session.id;
    let message: ChatMessage;
    let error: TurnError | undefined;
    try {
      const history = (await store.page(sessionId, { limit: contextMessages })).messages;
      ({ message, error } = await agent.runTurn({
        sessionId,
        history,
        signal: turn.controller.signal,
        workspace: workspaces.for(sessionId),
        // Only to a model that reads them: one that does not is told they were there.
        ...(this.#images ? { images: (id: string) => store.getImage(id) } : {}),
        approvals: turn.approvals,
        executions: {
          starting: (callId, name) =>
            store.toolStarting({ sessionId, turnId: turn.id, callId, name, at: now() }),
          ended: (callId, outcome) => store.toolEnded(sessionId, turn.id, callId, outcome, now()),
        },
      }));
    } catch (thrown) {
      // runTurn reports its failures in its result; reaching here is a bug (or the store).
      error = {
        code: ErrorCode.Internal,
        message: 'internal error',
        errorId: this.#logError(thrown, 'the turn failed'),
      };
      message = { id: `msg_${randomUUID()}`, role: 'assistant', parts: [], createdAt: turn.startedAt };
    }
    // The server stopped it (a cap, shutdown): not the visitor's Stop, and the message says so.
    if (turn.stopReason) error = turn.stopReason;
    if (error) message = { ...message, status: 'error', error };
    // A turn another instance took over (this one was presumed dead) stores nothing: that
    // instance ends it for everyone (fencing), here in Redis and again in the store.
    const stored =
      turn.lease && !turn.lease.owned
        ? { message, errors: [], lost: true as const }
        : await this.#store(sessionId, turn.id, message);
    message = stored.message;
    const { errors } = stored;
    if (stored.lost) {
      // Another instance presumed this one dead and ended the turn for everyone: its
      // answer stands, and this one is neither stored nor sent (fencing).
      logger.error(
        { sessionId, turnId: turn.id },
        'another instance ended this turn meanwhile: its answer was dropped',
      );
    } else {
      for (const each of errors) this.#broadcast(sessionId, { type: 'error', sessionId, ...each });
      this.#broadcast(sessionId, {
        type: 'message',
        sessionId,
        message: withoutArguments(forClients(message)),
      });
    }
    session.turn = undefined;
    await turn.lease?.release();
    const { tokens } = turnTokens(message.usage, turn.chars);
    await this.#spend(() => this.#options.budgets.turnEnded(turn.visitor, tokens));
    const ms = now() - turn.startedAt;
    const firstChunkMs = turn.firstChunkAt === undefined ? null : turn.firstChunkAt - turn.startedAt;
    logger.info(
      {
        sessionId,
        status: message.status,
        ms,
        firstChunkMs,
        tools: turn.tools,
        chars: turn.chars,
        tokens: message.usage?.totalTokens ?? null,
        ...(errors.length ? { error: errors.map((e) => e.code).join(',') } : {}),
      },
      'turn ended',
    );
    // The same summary for a listener (metrics), typed rather than read off the log.
    try {
      this.#options.onTurnEnded({
        messageId: message.id,
        status: message.status,
        ms,
        firstChunkMs,
        tools: turn.tools,
        chars: turn.chars,
        ...(message.usage ? { usage: message.usage } : {}),
        errors: errors.map((e) => e.code),
      });
    } catch (thrown) {
      logger.error({ err: thrown }, 'the onTurnEnded listener threw');
    }
    this.#forgetIfIdle(session);
  }

  /**
   * Stores the turn's answer; returns the message to send and the errors to tell (the
   * turn's own, then storage's). When storing fails (a full disk), the visitor is told
   * the truth, and the history still answers the question: a small failed message under
   * the same id takes the answer's place, with the turn's own reason when it had one.
   * When even that fails, the turn stays marked as running in the store, and the next
   * turn or start marks it failed. `lost` when the store refused the answer because the
   * turn was no longer this instance's (another one ended it).
   */
  async #store(
    sessionId: string,
    turnId: string,
    message: ChatMessage,
  ): Promise<{ message: ChatMessage; errors: TurnError[]; lost?: true }> {
    const { store } = this.#options;
    const own = message.error ? [message.error as TurnError] : [];
    try {
      if (!(await store.endTurn(sessionId, message, turnId))) return { message, errors: own, lost: true };
      return { message, errors: own };
    } catch (thrown) {
      const unsaved: TurnError = {
        code: ErrorCode.Storage,
        message: 'the answer could not be saved: it will be gone after a reload',
        errorId: logErrorWithId(this.#options.logger, thrown, 'storing the answer failed', {
          sessionId,
          turnError: message.error?.code ?? null,
        }),
      };
      const failed: ChatMessage = { ...message, status: 'error', error: message.error ?? unsaved };
      try {
        const { usage: _usage, ...stub } = failed;
        // Refused: another instance ended the turn meanwhile, and its answer stands.
        if (!(await store.endTurn(sessionId, { ...stub, parts: [] }, turnId)))
          return { message: failed, errors: [], lost: true };
      } catch (again) {
        this.#options.logger.error(
          { err: again, errorId: unsaved.errorId, sessionId },
          'storing the failed answer failed too: the turn stays marked running until the next turn or start',
        );
      }
      // The visitor keeps what was shown (it may still be copied), marked as not saved.
      return { message: failed, errors: [...own, unsaved] };
    }
  }

  /**
   * With a cluster: turns whose instance died while no tab was on their session (so no
   * instance watched their lease) stay marked running in the history. Every instance
   * looks now and then; a mark whose lease is gone at two looks half a lease apart is
   * ended as interrupted (the history resolves each mark once, whoever looks). A session
   * this instance follows is left to the watch, which keeps the answer so far.
   */
  async #sweep(): Promise<void> {
    const cluster = this.#cluster;
    if (!cluster || this.#sweeping || this.#shuttingDown) return;
    this.#sweeping = true;
    try {
      const ended = await this.#options.store.recoverInterruptedTurns(async (sessionId) => {
        const session = this.#sessions.get(sessionId);
        if (session && (session.turn || session.claiming || this.#remoteTurn(session))) return true;
        // Slower than the watch of an instance with a tab on the session (two looks half a
        // lease apart), so that one, which keeps the answer so far, ends the turn first.
        return !(await cluster.ownerGone(sessionId, cluster.sweepEveryMs / 3));
      });
      if (ended)
        this.#options.logger.info(
          { turns: ended },
          'turns whose instance died, with no tab left, were marked failed',
        );
    } catch (error) {
      this.#logError(error, 'looking for turns whose instance died failed');
    } finally {
      this.#sweeping = false;
    }
  }

  /**
   * The turn `turnId` runs on no instance any more: its owner died mid-turn (cluster).
   * One instance (the one that wins the lease) ends it for everyone: the answer so far,
   * as this instance's buffer has it, stored as failed with `interrupted`; a tool call
   * that started and never ended is kept as "may have completed" and never run again.
   * When the dead owner had stored its answer after all, that answer is sent instead.
   */
  async #endOrphanedTurn(session: Session, turnId: string): Promise<void> {
    const cluster = this.#cluster;
    if (!cluster || session.turn || session.claiming || this.#remoteTurn(session) !== turnId) return;
    // Held in memory, and no send of this instance claims meanwhile, until it is done.
    session.claiming = true;
    session.pending++;
    try {
      await this.#endOrphaned(cluster, session, turnId);
    } finally {
      session.claiming = false;
      session.pending--;
      this.#forgetIfIdle(session);
    }
  }

  async #endOrphaned(cluster: SessionCluster, session: Session, turnId: string): Promise<void> {
    const { store, now } = this.#options;
    const sessionId = session.id;
    // A `message` (or a new turn's `user_message`) read during the claim moves this.
    const epoch = session.epoch;
    let lease: ClusterTurn | 'busy';
    try {
      lease = await cluster.claim(sessionId, `orphan:${turnId}`, { abort: () => {}, decide: () => {} });
    } catch (error) {
      this.#logError(error, 'ending a turn whose instance died failed: the shared state cannot be reached');
      return;
    }
    if (lease === 'busy') return; // Another instance ends it (or a new turn began).
    // Everything before the claim was read meanwhile: the turn may have ended after all.
    if (session.epoch !== epoch) return void (await lease.release());
    const turn: RunningTurn = {
      id: turnId,
      controller: new AbortController(),
      lease,
      startedAt: now(),
      chars: 0,
      argumentChars: new Map(),
      tools: 0,
      approvals: new PendingApprovals(
        sessionId,
        new Set(),
        () => {},
        () => Promise.resolve(false),
        now,
      ),
      visitor: undefined,
      finished: Promise.resolve(),
    };
    session.turn = turn;
    try {
      const unfinished = await store.unfinishedTools(sessionId, turnId);
      const error = {
        code: ErrorCode.Interrupted,
        message: 'the server running this answer stopped before it was finished',
      };
      const message: ChatMessage = {
        ...orphanedAnswer(session.view, now()),
        status: 'error',
        error,
      };
      if (await store.endTurn(sessionId, message, turnId)) {
        this.#broadcast(sessionId, { type: 'error', sessionId, ...error });
        this.#broadcast(sessionId, { type: 'message', sessionId, message });
      } else {
        // The owner stored its answer, then died before every tab had it.
        // Or another instance's look marked it failed: its tabs hear why, as with any end.
        const last = (await store.page(sessionId, { limit: 1 })).messages[0];
        if (last?.role === 'assistant') {
          if (last.error) this.#broadcast(sessionId, { type: 'error', sessionId, ...last.error });
          this.#broadcast(sessionId, { type: 'message', sessionId, message: forClients(last) });
        }
      }
      this.#options.logger.info(
        { sessionId, turnId, toolsMayHaveCompleted: unfinished.length },
        'ended a turn whose instance died',
      );
    } catch (error) {
      this.#logError(error, 'ending a turn whose instance died failed');
    } finally {
      session.turn = undefined;
      await lease.release();
      this.#forgetIfIdle(session);
    }
  }

  /** Counts what the turn streamed against its caps; a turn over one is stopped at once. */
  #count(turn: RunningTurn, chunk: StreamChunkMessage): void {
    const { maxTurnChars, maxToolArgumentChars } = this.#options;
    turn.firstChunkAt ??= this.#options.now();
    turn.chars += (chunk.contentDelta?.length ?? 0) + (chunk.reasoningDelta?.length ?? 0);
    const progress = chunk.toolCallProgress;
    if (progress) {
      const before = turn.argumentChars.get(progress.index) ?? 0;
      turn.argumentChars.set(progress.index, progress.charsAccumulated);
      turn.chars += Math.max(0, progress.charsAccumulated - before);
      if (progress.charsAccumulated > maxToolArgumentChars) {
        return this.#stop(turn, {
          code: ErrorCode.TooLarge,
          message: `a tool call passed ${maxToolArgumentChars} characters of arguments: it was stopped and not run`,
        });
      }
    }
    // Indexes start again at 0 in the next round.
    if (chunk.done) turn.argumentChars.clear();
    if (turn.chars > maxTurnChars) {
      this.#stop(turn, {
        code: ErrorCode.TooLarge,
        message: `the answer passed ${maxTurnChars} characters and was stopped`,
      });
    }
  }

  /** Why the budgets refuse this peer's send now; a budget that cannot be read refuses nothing. */
  async #overBudget(peer: Peer) {
    try {
      // With a cluster, the turns every instance runs: the limit holds for the whole site.
      const cluster = this.#cluster;
      const running = cluster ? () => cluster.runningTurns() : () => this.runningTurns;
      return await this.#options.budgets.refusal(peer.visitor, running);
    } catch (error) {
      this.#logError(error, 'reading the budgets failed: the message was let through');
      return undefined;
    }
  }

  /** Counts against the budgets; a count that cannot be stored is logged, never a failed turn. */
  async #spend(count: () => Promise<void>): Promise<void> {
    try {
      await count();
    } catch (error) {
      this.#logError(error, 'counting against the budgets failed');
    }
  }

  /** Ends the turn as cut off: its model request is aborted, so no half-written call runs. */
  #stop(turn: RunningTurn, reason: TurnError): void {
    if (turn.stopReason) return;
    turn.stopReason = reason;
    turn.controller.abort();
  }

  /** The newest messages of a page that fit in `maxPageBytes` (always at least one). */
  #bounded(stored: HistoryPage): HistoryPage {
    const page = { ...stored, messages: stored.messages.map(forClients) };
    let bytes = 0;
    let start = page.messages.length;
    while (start > 0) {
      bytes += Buffer.byteLength(JSON.stringify(page.messages[start - 1]));
      if (bytes > this.#options.maxPageBytes && start < page.messages.length) break;
      start--;
    }
    if (start === 0) return page;
    return { messages: page.messages.slice(start), hasMore: true };
  }

  /**
   * The approval desk of a new turn, with the tools the user allowed for the rest of the
   * conversation. A grant that cannot be read or kept (storage failed) is not assumed: the
   * user is asked again, which is safe.
   */
  async #approvalsFor(sessionId: string): Promise<PendingApprovals> {
    const { store, now } = this.#options;
    let grants: string[] = [];
    try {
      grants = await store.grantedTools(sessionId);
    } catch (error) {
      this.#logError(error, 'reading the tool grants failed');
    }
    const keepGrant = async (toolName: string): Promise<boolean> => {
      try {
        await store.grantTool(sessionId, toolName);
        return true;
      } catch (error) {
        this.#logError(error, 'storing a tool grant failed');
        return false;
      }
    };
    return new PendingApprovals(
      sessionId,
      new Set(grants),
      (frame) => this.#broadcast(sessionId, frame),
      keepGrant,
      now,
    );
  }

  /**
   * Every peer of the session gets the frame, and the session's buffer takes it in; with
   * a cluster, the turn's lease publishes it for the other instances' peers.
   */
  #broadcast(sessionId: string, frame: ServerFrame): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    const text = this.#take(session, frame);
    session.turn?.lease?.publish(text, () => snapshot(session.view, this.#options.now()));
  }

  /** The turn another instance runs on the session (cluster), as the session's log says. */
  #remoteTurn(session: Session): string | undefined {
    return session.turn ? undefined : this.#cluster?.remoteTurn(session.id);
  }

  /**
   * Reduces the frame into the session's buffer and delivers it to its peers; returns its
   * JSON: made here once for every peer, or as another instance published it (cluster).
   */
  #take(session: Session, frame: ServerFrame, text = JSON.stringify(frame)): string {
    if (frame.type === 'user_message' || frame.type === 'message') session.epoch++;
    // Deleted, here or on another instance: its tabs leave it, and nothing starts in it.
    if (frame.type === 'session_deleted') session.deleted = true;
    const view = reduce(session.view, frame, this.#options.now());
    // History is the store's job: the buffer keeps only the running turn, so it stays small.
    session.view = view.messages.length ? { ...view, messages: [] } : view;
    for (const peer of session.peers) peer.deliver(frame, text);
    return text;
  }

  /** The owner of a new session another instance announced; unknown when Redis cannot say. */
  async #announcedOwner(sessionId: string): Promise<string | null | undefined> {
    try {
      return await this.#cluster?.announcedOwner(sessionId);
    } catch (error) {
      this.#logError(error, 'asking the other instances for a new session failed');
      return undefined;
    }
  }

  /**
   * Makes a new session known to the other instances (cluster). Failing (Redis down)
   * costs only that: a second tab elsewhere would start its own empty session.
   */
  async #announce(sessionId: string, owner: string | null): Promise<void> {
    try {
      await this.#cluster?.announce(sessionId, owner);
    } catch (error) {
      this.#logError(error, 'announcing a new session to the other instances failed');
    }
  }

  /**
   * With a cluster: makes sure the other instances' frames of the session reach this
   * one, a running turn's snapshot first. Once per session in memory.
   */
  #follow(session: Session): Promise<void> {
    const cluster = this.#cluster;
    if (!cluster) return Promise.resolve();
    session.followed ??= cluster.follow(session.id, {
      // Frames other instances published, in order, delivered as they came.
      frames: (frames) => {
        for (const { frame, text } of frames) this.#take(session, frame, text);
      },
      ownerGone: (turnId) => void this.#endOrphanedTurn(session, turnId),
    });
    return session.followed;
  }

  #deliver(peer: Peer, frame: ServerFrame): void {
    peer.deliver(frame, JSON.stringify(frame));
  }

  /** The session in memory, made (with its owner, for a new one) when it is not there. */
  #session(sessionId: string, owner: string | null = null): Session {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = {
        id: sessionId,
        owner,
        peers: new Set(),
        view: { ...emptyView, sessionId },
        epoch: 0,
        pending: 0,
        claiming: false,
      };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  #forgetIfIdle(session: Session): void {
    if (session.peers.size || session.turn || session.pending) return;
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    this.#cluster?.unfollow(session.id);
  }

  #logError(error: unknown, what: string): string {
    return logErrorWithId(this.#options.logger, error, what);
  }
}

/**
 * The `message` frame's copy of a final message: its tool calls without their
 * arguments, which every client of the session already has (from `tool_execute` start
 * or `stream_resume`); the reducer puts them back. Large arguments cross the wire once.
 */
function withoutArguments(message: ChatMessage): ChatMessage {
  if (!message.parts.some((p) => p.type === 'tool_call' && p.arguments !== undefined)) return message;
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (part.type !== 'tool_call') return part;
      const { arguments: _arguments, ...rest } = part;
      return rest;
    }),
  };
}

/**
 * The answer of a turn whose instance died, as far as the buffer has it: a tool call that
 * was still running may have completed (its instance died after starting it), so it is
 * marked as such, and never run again.
 */
function orphanedAnswer(view: ChatView, now: number): ChatMessage {
  const parts = (view.turn?.parts ?? []).map((part) =>
    part.type === 'tool_call' && part.status === 'running'
      ? { ...part, status: 'unknown' as const, endedAt: now }
      : part,
  );
  return { id: `msg_${randomUUID()}`, role: 'assistant', parts, createdAt: now };
}

/** The greeting's fields for `ready`: only those the owner set. */
function greetingFields({ welcome, starters }: Greeting): Greeting {
  return { ...(welcome ? { welcome } : {}), ...(starters?.length ? { starters } : {}) };
}
