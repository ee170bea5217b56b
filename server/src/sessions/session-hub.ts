/**
 * Sessions, independent of any transport: who is connected to which session, each
 * session's stream buffer, and the turn it runs. The buffer is the protocol reducer's
 * view of exactly the frames the session's connections were sent, so a connection that
 * joins mid-turn gets `stream_resume` from it and continues where the others are.
 * Closing a connection never stops a turn; only `abort` (or shutdown) does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ErrorCode,
  emptyView,
  reduce,
  snapshot,
  type ChatMessage,
  type ChatView,
  type ServerFrame,
  type StreamChunkMessage,
  type Usage,
} from '@aalis/protocol';
import type { Agent, TurnError } from '../agent/agent.js';
import { Budgets } from '../budgets/budgets.js';
import { turnTokens } from '../budgets/turn-tokens.js';
import type { HistoryPage, HistoryStore } from '../history/store.js';
import { logErrorWithId } from '../log-error.js';
import { mayOpen, ownerKey } from './owner.js';
import { PendingApprovals } from './pending-approvals.js';
import { Workspaces } from '../tools/workspace.js';
import { DEFAULT_MAX_PAGE_BYTES, DEFAULT_MAX_TOOL_ARGUMENT_CHARS, DEFAULT_MAX_TURN_CHARS } from './limits.js';

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

export interface SessionHubOptions {
  agent: Agent;
  store: HistoryStore;
  logger: HubLogger;
  workspaces?: Workspaces;
  now?: () => number;
  /** Messages `ready` carries; older ones are paged with `history`. */
  historyPageSize?: number;
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
  /** What visitors and the server may spend (budgets/budgets.ts); none by default. */
  budgets?: Budgets;
}

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
  controller: AbortController;
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
  turn?: RunningTurn;
}

/** 128 random bits: a session id is the only key to a conversation, so it must not be guessable. */
const newSessionId = (): string => randomBytes(16).toString('base64url');

export class SessionHub {
  readonly #sessions = new Map<string, Session>();
  readonly #options: Required<SessionHubOptions>;
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
      onTurnEnded: () => {},
      budgets: new Budgets(),
      ...options,
    };
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
   * sends it `ready` (and `stream_resume` while a turn runs). Returns the session id.
   * Writes nothing: a new session is stored with its first message, so `hello` costs an
   * abuser no row. Throws when the store cannot be read; the peer is then not bound.
   */
  hello(peer: Peer, requestedId: string | undefined): string {
    const { store, now } = this.#options;
    const owner = ownerKey(peer.visitor);
    // Another visitor's session is answered exactly as an unknown one: a new, empty
    // session, after the same store lookup, so ids cannot be probed.
    const stored = requestedId === undefined ? undefined : store.ownerOf(requestedId);
    const live = requestedId === undefined ? undefined : this.#sessions.get(requestedId);
    const exists = live !== undefined || stored !== undefined;
    const known = exists && mayOpen(live ? live.owner : stored!, owner);
    const sessionId = known ? requestedId! : newSessionId();
    const page = known
      ? this.#bounded(store.page(sessionId, { limit: this.#options.historyPageSize }))
      : { messages: [], hasMore: false };
    // A stored session keeps its stored owner (null for one made before owners).
    const session = this.#session(sessionId, known && !live ? stored! : owner);
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
    });
    const resume = snapshot(session.view, serverTime);
    if (resume) this.#deliver(peer, resume);
    return sessionId;
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
  send(peer: Peer, sessionId: string, text: string, clientMessageId?: string): void {
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
    if (session.turn) {
      return refuse(ErrorCode.Busy, 'a turn is still running: wait for it to end, or stop it');
    }
    // Budgets: the visitor's turns per hour and tokens per day (`quota_exceeded`), the
    // server's tokens per day and turns at once (`overloaded`), with when to try again.
    const overBudget = this.#overBudget(peer);
    if (overBudget) {
      const { code, message, ...more } = overBudget;
      return refuse(code, message, undefined, more);
    }
    const { store, now } = this.#options;
    const startedAt = now();
    const userMessage: ChatMessage = {
      id: `msg_${randomUUID()}`,
      role: 'user',
      parts: [{ type: 'text', text }],
      createdAt: startedAt,
    };
    try {
      store.beginTurn(sessionId, userMessage, startedAt, session.owner);
    } catch (error) {
      const errorId = this.#logError(error, 'storing the message failed');
      return refuse(ErrorCode.Storage, 'your message could not be saved: send it again in a moment', errorId);
    }
    this.#spend(() => this.#options.budgets.turnAccepted(peer.visitor));
    this.#broadcast(sessionId, {
      type: 'user_message',
      sessionId,
      message: userMessage,
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
    });
    const turn: RunningTurn = {
      controller: new AbortController(),
      startedAt,
      chars: 0,
      argumentChars: new Map(),
      tools: 0,
      approvals: this.#approvalsFor(sessionId),
      visitor: peer.visitor,
      finished: Promise.resolve(),
    };
    session.turn = turn;
    turn.finished = this.#run(session, turn);
  }

  /** Stops the session's running turn, if any: the model request and its tools are cancelled. */
  abort(sessionId: string): void {
    this.#sessions.get(sessionId)?.turn?.controller.abort();
  }

  /**
   * A user's answer to a tool call's approval request, from any tab of the session. The
   * first decision wins; one for a call that no longer waits changes nothing (every tab
   * already has, or soon gets, the outcome as the call's `tool_execute`).
   */
  decide(sessionId: string, callId: string, decision: 'approve' | 'deny', remember?: 'session'): void {
    this.#sessions.get(sessionId)?.turn?.approvals.decide(callId, decision, remember);
  }

  /** Older history for one peer. */
  history(peer: Peer, sessionId: string, before: string, limit: number): void {
    const page = this.#bounded(this.#options.store.page(sessionId, { limit, before }));
    this.#deliver(peer, { type: 'history', sessionId, messages: page.messages, hasMore: page.hasMore });
  }

  /**
   * Stops taking turns, stops the running ones (their clients get `shutting_down`), and
   * waits a while for their final messages to be stored.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
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
      const history = store.page(sessionId, { limit: contextMessages }).messages;
      ({ message, error } = await agent.runTurn({
        sessionId,
        history,
        signal: turn.controller.signal,
        workspace: workspaces.for(sessionId),
        approvals: turn.approvals,
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
    const stored = this.#store(sessionId, message);
    message = stored.message;
    const { errors } = stored;
    for (const each of errors) this.#broadcast(sessionId, { type: 'error', sessionId, ...each });
    this.#broadcast(sessionId, { type: 'message', sessionId, message: withoutArguments(message) });
    session.turn = undefined;
    const { tokens } = turnTokens(message.usage, turn.chars);
    this.#spend(() => this.#options.budgets.turnEnded(turn.visitor, tokens));
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
   * turn or start marks it failed.
   */
  #store(sessionId: string, message: ChatMessage): { message: ChatMessage; errors: TurnError[] } {
    const { store } = this.#options;
    const own = message.error ? [message.error as TurnError] : [];
    try {
      store.endTurn(sessionId, message);
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
        store.endTurn(sessionId, { ...stub, parts: [] });
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
  #overBudget(peer: Peer) {
    try {
      return this.#options.budgets.refusal(peer.visitor, () => this.runningTurns);
    } catch (error) {
      this.#logError(error, 'reading the budgets failed: the message was let through');
      return undefined;
    }
  }

  /** Counts against the budgets; a count that cannot be stored is logged, never a failed turn. */
  #spend(count: () => void): void {
    try {
      count();
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
  #bounded(page: HistoryPage): HistoryPage {
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

  /** Every peer of the session gets the frame, and the session's buffer takes it in. */
  /**
   * The approval desk of a new turn, with the tools the user allowed for the rest of the
   * conversation. A grant that cannot be read or kept (storage failed) is not assumed: the
   * user is asked again, which is safe.
   */
  #approvalsFor(sessionId: string): PendingApprovals {
    const { store, now } = this.#options;
    let grants: string[] = [];
    try {
      grants = store.grantedTools(sessionId);
    } catch (error) {
      this.#logError(error, 'reading the tool grants failed');
    }
    const keepGrant = (toolName: string): boolean => {
      try {
        store.grantTool(sessionId, toolName);
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

  #broadcast(sessionId: string, frame: ServerFrame): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    const view = reduce(session.view, frame, this.#options.now());
    // History is the store's job: the buffer keeps only the running turn, so it stays small.
    session.view = view.messages.length ? { ...view, messages: [] } : view;
    const text = JSON.stringify(frame);
    for (const peer of session.peers) peer.deliver(frame, text);
  }

  #deliver(peer: Peer, frame: ServerFrame): void {
    peer.deliver(frame, JSON.stringify(frame));
  }

  /** The session in memory, made (with its owner, for a new one) when it is not there. */
  #session(sessionId: string, owner: string | null = null): Session {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = { id: sessionId, owner, peers: new Set(), view: { ...emptyView, sessionId } };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  #forgetIfIdle(session: Session): void {
    if (!session.peers.size && !session.turn) this.#sessions.delete(session.id);
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
