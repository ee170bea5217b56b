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
} from '@aalis/protocol';
import type { Agent, TurnError } from '../agent/agent.js';
import type { HistoryStore } from '../history/store.js';
import { Workspaces } from '../tools/workspace.js';

/** A connection as the hub sees it. */
export interface Peer {
  readonly id: string;
  /** Sends one frame; `text` is its JSON, made once for every peer of a broadcast. */
  deliver(frame: ServerFrame, text: string): void;
}

export interface HubLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
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
  /** Text and reasoning one turn may stream before it is stopped. */
  maxTurnChars?: number;
  /** How long shutdown waits for running turns to store their final message. */
  shutdownGraceMs?: number;
}

interface RunningTurn {
  controller: AbortController;
  startedAt: number;
  firstChunkAt?: number;
  chars: number;
  tools: number;
  stopReason?: TurnError;
  finished: Promise<void>;
}

interface Session {
  id: string;
  peers: Set<Peer>;
  /** The stream buffer: the running turn as the reducer sees it (history lives in the store). */
  view: ChatView;
  turn?: RunningTurn;
}

/** 128 random bits: a session id is the only key to a conversation, so it must not be guessable. */
export const newSessionId = (): string => randomBytes(16).toString('base64url');

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
      maxTurnChars: 1_000_000,
      shutdownGraceMs: 5_000,
      ...options,
    };
    const { agent } = this.#options;
    agent.on('outbound:stream', (chunk) => {
      const turn = this.#sessions.get(chunk.sessionId)?.turn;
      if (turn) this.#count(turn, (chunk.contentDelta?.length ?? 0) + (chunk.reasoningDelta?.length ?? 0));
      this.#broadcast(chunk.sessionId, { type: 'stream', ...chunk });
    });
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

  /**
   * Binds a peer to the session it asks for, or to a new one when that is unknown, and
   * sends it `ready` (and `stream_resume` while a turn runs). Returns the session id.
   */
  hello(peer: Peer, requestedId: string | undefined): string {
    const { store, now } = this.#options;
    const known =
      requestedId !== undefined && (this.#sessions.has(requestedId) || store.hasSession(requestedId));
    const sessionId = known ? requestedId : newSessionId();
    if (!known) store.createSession(sessionId, now());
    const session = this.#session(sessionId);
    session.peers.add(peer);
    const page = store.page(sessionId, { limit: this.#options.historyPageSize });
    const serverTime = now();
    this.#deliver(peer, {
      type: 'ready',
      sessionId,
      serverTime,
      messages: page.messages,
      resumed: known,
      hasMore: page.hasMore,
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

  /** A user message: starts a turn, unless one runs (then `busy`, to this peer only). */
  send(peer: Peer, sessionId: string, text: string, clientMessageId?: string): void {
    const session = this.#session(sessionId);
    if (this.#shuttingDown) {
      this.#deliverError(peer, ErrorCode.ShuttingDown, 'the server is restarting; send again in a moment');
      return;
    }
    if (session.turn) {
      this.#deliverError(peer, ErrorCode.Busy, 'a turn is still running: wait for it to end, or stop it');
      return;
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
      store.beginTurn(sessionId, userMessage, startedAt);
    } catch (error) {
      this.#deliverError(peer, ErrorCode.Internal, this.#internal(error, 'storing the message failed'));
      return;
    }
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
      tools: 0,
      finished: Promise.resolve(),
    };
    session.turn = turn;
    turn.finished = this.#run(session, turn);
  }

  /** Stops the session's running turn, if any: the model request and its tools are cancelled. */
  abort(sessionId: string): void {
    this.#sessions.get(sessionId)?.turn?.controller.abort();
  }

  /** Older history for one peer. */
  history(peer: Peer, sessionId: string, before: string, limit: number): void {
    const page = this.#options.store.page(sessionId, { limit, before });
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
        message: 'the server is restarting; this turn was stopped',
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
      }));
    } catch (thrown) {
      // runTurn reports its failures in its result; reaching here is a bug.
      error = { code: ErrorCode.Internal, message: this.#internal(thrown, 'the turn failed') };
      message = {
        id: `msg_${randomUUID()}`,
        role: 'assistant',
        parts: [],
        createdAt: turn.startedAt,
        status: 'error',
      };
    }
    if (turn.stopReason) {
      error = turn.stopReason;
      if (turn.stopReason.code !== ErrorCode.ShuttingDown) message = { ...message, status: 'error' };
    }
    try {
      store.endTurn(sessionId, message);
    } catch (thrown) {
      error = { code: ErrorCode.Internal, message: this.#internal(thrown, 'storing the answer failed') };
    }
    if (error)
      this.#broadcast(sessionId, { type: 'error', code: error.code, message: error.message, sessionId });
    this.#broadcast(sessionId, { type: 'message', sessionId, message });
    session.turn = undefined;
    logger.info(
      {
        sessionId,
        status: message.status,
        ms: now() - turn.startedAt,
        firstChunkMs: turn.firstChunkAt === undefined ? null : turn.firstChunkAt - turn.startedAt,
        tools: turn.tools,
        chars: turn.chars,
        tokens: message.usage?.totalTokens ?? null,
        ...(error ? { error: error.code } : {}),
      },
      'turn ended',
    );
    this.#forgetIfIdle(session);
  }

  #count(turn: RunningTurn, chars: number): void {
    turn.firstChunkAt ??= this.#options.now();
    turn.chars += chars;
    if (turn.chars > this.#options.maxTurnChars && !turn.stopReason) {
      turn.stopReason = {
        code: ErrorCode.Upstream,
        message: `the answer passed ${this.#options.maxTurnChars} characters and was stopped`,
      };
      turn.controller.abort();
    }
  }

  /** Every peer of the session gets the frame, and the session's buffer takes it in. */
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

  #deliverError(peer: Peer, code: string, message: string): void {
    this.#deliver(peer, { type: 'error', code, message });
  }

  #session(sessionId: string): Session {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = { id: sessionId, peers: new Set(), view: { ...emptyView, sessionId } };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  #forgetIfIdle(session: Session): void {
    if (!session.peers.size && !session.turn) this.#sessions.delete(session.id);
  }

  #internal(error: unknown, what: string): string {
    const id = randomUUID().slice(0, 8);
    this.#options.logger.error({ err: error, errorId: id }, what);
    return `${what} (internal error ${id})`;
  }
}
