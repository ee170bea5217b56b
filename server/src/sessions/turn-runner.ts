/**
 * Runs a session's turns, one at a time per session: claims the turn (through the
 * coordination, so one instance runs it), checks the budgets, stores the question, runs
 * the agent, caps what it streams, stores the answer, tells every tab how it ended, and
 * counts it. Stop and approval decisions reach the turn here, on whichever instance runs it.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, type ChatMessage } from '@aalis/protocol';
import type { TurnError } from '../agent/turn-agent.js';
import { forClients } from '../agent/stored-message.js';
import { turnTokens } from '../budgets/turn-tokens.js';
import { logErrorWithId } from '../util/log-error.js';
import { storeAnswer, withoutArguments, type SavingTurn } from './answer-storage.js';
import type { ApprovalDecision, ElicitationAnswer, TurnLease } from './coordination.js';
import { checkAnswer } from './elicitation-answer.js';
import type { HubSettings, Peer } from './hub-options.js';
import type { OrphanedTurns } from './orphaned-turns.js';
import { PendingApprovals } from './pending-approvals.js';
import { NOT_PENDING, PendingElicitations, type AnswerOutcome } from './pending-elicitations.js';
import type { Question, Refusal } from './questions.js';
import { RunningTurn } from './running-turn.js';
import type { SessionBroadcast } from './session-broadcast.js';
import type { Session, SessionRegistry } from './session-registry.js';

/** Tells the peer that asked why its question was not taken (with extra fields: when to retry). */
type Refuse = (code: string, message: string, errorId?: string, more?: object) => void;

export class TurnRunner {
  #shuttingDown = false;
  /** Set once the drain is over: a turn claimed from now on is stopped as it begins. */
  #stopping = false;
  /** The one shutdown (a second call only hurries it). */
  #shutdown: Promise<void> | undefined;
  /** Ends the drain at once (a second SIGTERM). */
  #endDrain: () => void = () => {};

  constructor(
    private readonly settings: HubSettings,
    private readonly registry: SessionRegistry,
    private readonly broadcast: SessionBroadcast,
    /** Ends a turn whose owner died that a new claim finds never ended. */
    private readonly orphans: OrphanedTurns,
  ) {
    const { agent } = settings;
    agent.on('outbound:stream', (chunk) => {
      const turn = registry.get(chunk.sessionId)?.turn;
      if (turn) turn.count(chunk, settings.now(), settings);
      broadcast.toSession(chunk.sessionId, { type: 'stream', ...chunk });
    });
    agent.on('turn:status', (status) =>
      broadcast.toSession(status.sessionId, { type: 'turn_status', ...status }),
    );
    agent.on('tool:execute', (event) => {
      const turn = registry.get(event.sessionId)?.turn;
      if (turn && event.phase === 'start') turn.tools++;
      broadcast.toSession(event.sessionId, { type: 'tool_execute', ...event });
    });
  }

  /** Set by `shutdown`: no turn starts any more. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Claims the session for a turn (one at a time: else `busy`), then starts it with the
   * question `ask` gives (asked once claimed), or refuses with why `ask` says it cannot be
   * asked. A refusal echoes `clientMessageId`, so the client can give the text back to its author.
   */
  async start(
    peer: Peer,
    sessionId: string,
    clientMessageId: string | undefined,
    ask: () => Promise<Question | Refusal>,
  ): Promise<void> {
    const session = this.registry.open(sessionId);
    // The last turn's tabs have its end; its lease is being given up: this send follows it.
    if (session.ending) await session.ending;
    const refuse: Refuse = (code, message, errorId, more) =>
      this.broadcast.toPeer(peer, {
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
    await this.registry.holding(session, async () => {
      try {
        await this.#begin(session, peer, ask, clientMessageId, refuse, busy);
      } finally {
        session.claiming = false;
      }
    });
  }

  async #begin(
    session: Session,
    peer: Peer,
    ask: () => Promise<Question | Refusal>,
    clientMessageId: string | undefined,
    refuse: Refuse,
    busy: () => void,
  ): Promise<void> {
    const sessionId = session.id;
    // The owner's pause first (it holds for everyone), then what the peer itself must
    // pass (a bot challenge), then the budgets: the visitor's and its address's turns per
    // hour and tokens per day (`quota_exceeded`), the server's tokens per day and turns
    // at once (`overloaded`), with when to try again.
    if (await this.#paused())
      return refuse(
        ErrorCode.Paused,
        'this chat is paused for a moment: your message was not sent, please send it again a little later',
      );
    const notCleared = await peer.clearance?.();
    if (notCleared) return refuse(notCleared.code, notCleared.message, undefined, notCleared.more);
    const overBudget = await this.#overBudget(peer);
    if (overBudget) {
      const { code, message, ...more } = overBudget;
      return refuse(code, message, undefined, more);
    }
    const { store, now, coordination } = this.settings;
    const turnId = `msg_${randomUUID()}`;
    const controller = new AbortController();
    // Set once the turn exists; a decision cannot come before its request.
    const desk: { turn?: RunningTurn } = {};
    let lease: TurnLease | 'busy';
    try {
      // A stop that comes before the turn exists still stops it.
      lease = await coordination.claim(
        sessionId,
        turnId,
        { abort: () => controller.abort(), decide: (decision) => desk.turn?.take(decision) },
        () => this.#questionUnanswered(sessionId),
      );
    } catch (error) {
      const errorId = this.#logError(error, 'claiming the turn failed: the shared state cannot be reached');
      return refuse(
        ErrorCode.Unavailable,
        'the server cannot start an answer right now: send again in a moment',
        errorId,
      );
    }
    if (lease === 'busy') return busy();
    // The turn before never ended (its instance died, and nobody ended it yet): its tabs
    // get its end first, then this turn's question.
    if (lease.unended) await this.orphans.finish(session, lease.unended, lease);
    // Asked once the turn is claimed (on every instance): what it checks (the last
    // exchange, for regenerate and edit) cannot change before the turn begins.
    let question: Question | Refusal;
    try {
      question = await ask();
    } catch (error) {
      void lease.release();
      const errorId = this.#logError(error, 'reading the history failed');
      return refuse(ErrorCode.Storage, 'the conversation could not be read: try again in a moment', errorId);
    }
    if ('refused' in question) {
      void lease.release();
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
      // An answer still kept from this session's last turn goes in first: it comes before this question.
      await this.settings.keeper.storeSession(sessionId);
      await store.beginTurn(sessionId, userMessage, startedAt, session.owner);
    } catch (error) {
      void lease.release();
      const errorId = this.#logError(error, 'storing the message failed');
      return refuse(ErrorCode.Storage, 'your message could not be saved: send it again in a moment', errorId);
    }
    const approvals = await PendingApprovals.forSession(
      sessionId,
      store,
      (frame) => this.broadcast.toSession(sessionId, frame),
      now,
      (error, what) => this.#logError(error, what),
    );
    const elicitations = new PendingElicitations(
      sessionId,
      (frame) => this.broadcast.toSession(sessionId, frame),
      now,
      this.settings.elicitationTimeoutMs,
    );
    const turn = new RunningTurn({
      id: turnId,
      controller,
      lease,
      startedAt,
      approvals,
      elicitations,
      visitor: peer.visitor,
      address: peer.address,
    });
    desk.turn = turn;
    session.turn = turn;
    if (this.#stopping) turn.stopForShutdown();
    await this.#spend(() => this.settings.budgets.turnAccepted(peer.visitor, peer.address));
    this.broadcast.toSession(sessionId, {
      type: 'user_message',
      sessionId,
      message: userMessage,
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
    });
    turn.finished = this.#run(session, turn);
    try {
      this.settings.onTurnStarted({ questionId: userMessage.id, startedAt });
    } catch (thrown) {
      this.settings.logger.error({ err: thrown }, 'the onTurnStarted listener threw');
    }
  }

  /** Stops the session's running turn, if any (on whichever instance runs it): the model request and its tools are cancelled. */
  abort(sessionId: string): void {
    const session = this.registry.get(sessionId);
    // Stopped here, and recorded for the other instances too: were this one to die
    // before the turn ends, the instance that ends it for everyone ends it `aborted`.
    if (session?.turn) session.turn.controller.abort();
    const turnId = session?.turn?.id ?? (session && this.registry.remoteTurn(session));
    if (turnId) {
      this.settings.coordination
        .requestAbort(sessionId, turnId)
        .catch((error: unknown) =>
          this.#logError(error, 'passing a stop to the instance running the turn failed'),
        );
    }
  }

  /** A user's approval decision, for the turn this instance runs, or passed to the one that runs it. */
  decide(sessionId: string, decision: ApprovalDecision): void {
    const session = this.registry.get(sessionId);
    if (session?.turn) {
      session.turn.take(decision);
      return;
    }
    if (session && this.registry.remoteTurn(session)) {
      this.settings.coordination
        .passDecision(sessionId, decision)
        .catch((error: unknown) =>
          this.#logError(error, 'passing a decision to the instance running the turn failed'),
        );
    }
  }

  /**
   * A visitor's answer to an MCP server's request for input: taken by the turn this
   * instance runs, or checked against the request as this instance follows it and passed
   * to the instance that runs the turn. One that does not fit is refused here, where the
   * visitor hears why, and the request stays open.
   */
  answerElicitation(sessionId: string, answer: ElicitationAnswer): AnswerOutcome {
    const session = this.registry.get(sessionId);
    if (session?.turn?.elicitations) return session.turn.elicitations.answer(answer);
    const asked = session?.view.turn?.elicitations.get(answer.elicitationId);
    if (!session || !asked || !this.registry.remoteTurn(session)) return NOT_PENDING;
    const check = checkAnswer(asked, answer);
    if (!check.ok) return { ok: false, code: ErrorCode.InvalidAnswer, message: check.message };
    this.settings.coordination
      .passDecision(sessionId, answer)
      .catch((error: unknown) =>
        this.#logError(error, 'passing an answer to the instance running the turn failed'),
      );
    return { ok: true };
  }

  /**
   * Stops taking turns at once (`shutting_down`), lets the running ones finish for up to
   * `drainMs`, then stops those left (their clients get `shutting_down`) and waits a while
   * for their final messages to be stored. Called again while it drains, it ends the
   * drain at once: a second SIGTERM means now.
   */
  shutdown(): Promise<void> {
    if (this.#shutdown) {
      this.#endDrain();
      return this.#shutdown;
    }
    this.#shuttingDown = true;
    const cut = new Promise<void>((resolve) => (this.#endDrain = resolve));
    this.#shutdown = this.#drainThenStop(cut);
    return this.#shutdown;
  }

  async #drainThenStop(cut: Promise<void>): Promise<void> {
    const { drainMs, shutdownGraceMs } = this.settings;
    if (drainMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const over = Promise.race([
        cut,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs))),
      ]);
      // Again after each wait: a turn being claimed as the drain began runs too, and is waited for.
      for (let running = this.registry.turns(); running.length > 0; running = this.registry.turns()) {
        const ended = Promise.all(running.map((turn) => turn.finished)).then(() => true);
        if (!(await Promise.race([ended, over.then(() => false)]))) break;
      }
      clearTimeout(timer);
    }
    this.#stopping = true;
    const running = this.registry.turns();
    for (const turn of running) turn.stopForShutdown();
    const grace = new Promise<void>((resolve) => setTimeout(resolve, shutdownGraceMs).unref());
    await Promise.race([Promise.all(running.map((t) => t.finished)), grace]);
  }

  async #run(session: Session, turn: RunningTurn): Promise<void> {
    const { agent, store, now, logger, workspaces, contextMessages, images } = this.settings;
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
        ...(images ? { images: (id: string) => store.getImage(id) } : {}),
        approvals: turn.approvals,
        ...(turn.elicitations ? { elicitations: turn.elicitations } : {}),
        // The session's buffer folds the agent's events: the reducer runs once per frame here.
        view: () => session.view.turn,
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
    // While the history cannot take the answer, it is kept and tried again: the turn stays
    // open (its lease held, a new send is busy) and every tab is told, in the session's
    // buffer too, so a tab that joins meanwhile resumes with it.
    const saving: SavingTurn = {
      sessionId,
      turnId: turn.id,
      signal: turn.controller.signal,
      owned: () => turn.lease.owned,
      stopping: () => this.#shuttingDown,
      saving: (status) =>
        this.broadcast.toSession(sessionId, { type: 'turn_status', sessionId, state: 'saving', ...status }),
    };
    // A turn another instance took over (this one was presumed dead) stores nothing: that
    // instance ends it for everyone (fencing), in the shared state and again in the store.
    const stored = !turn.lease.owned
      ? { message, errors: [], lost: true as const }
      : await storeAnswer(this.settings.keeper, logger, saving, message);
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
      for (const each of errors) this.broadcast.toSession(sessionId, { type: 'error', sessionId, ...each });
      this.broadcast.toSession(sessionId, {
        type: 'message',
        sessionId,
        message: withoutArguments(forClients(message)),
      });
    }
    session.turn = undefined;
    session.ending = turn.lease.release();
    await session.ending;
    session.ending = undefined;
    const { tokens } = turnTokens(message.usage, turn.chars);
    await this.#spend(() => this.settings.budgets.turnEnded(turn.visitor, tokens, turn.address));
    this.#report(sessionId, turn, message, errors);
    this.registry.forgetIfIdle(session);
  }

  /** The `turn ended` log line, and the same summary for a listener (metrics), typed rather than read off the log. */
  #report(sessionId: string, turn: RunningTurn, message: ChatMessage, errors: TurnError[]): void {
    const { now, logger, onTurnEnded } = this.settings;
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
    try {
      onTurnEnded({
        sessionId,
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
  }

  /** Why the budgets refuse this peer's send now; a budget that cannot be read refuses nothing. */
  async #overBudget(peer: Peer) {
    try {
      // The turns every instance runs: the limit holds for the whole site.
      const { coordination } = this.settings;
      return await this.settings.budgets.refusal(peer.visitor, peer.address, () =>
        coordination.runningTurns(() => this.registry.runningTurns),
      );
    } catch (error) {
      this.#logError(error, 'reading the budgets failed: the message was let through');
      return undefined;
    }
  }

  /**
   * Whether a turn may be running in the session as the history says (its last message
   * is a question without an answer): asked only when the shared state lost its data a
   * moment ago, so that a claim does not take a turn an owner is about to put back. A
   * history that cannot be read says it may.
   */
  async #questionUnanswered(sessionId: string): Promise<boolean> {
    try {
      const last = (await this.settings.store.page(sessionId, { limit: 1 })).messages[0];
      // A message to a person (a handoff) is answered by no turn.
      return last?.role === 'user' && !last.toOperator;
    } catch (error) {
      this.#logError(error, 'reading the history failed');
      return true;
    }
  }

  /** Whether the owner paused the chat; a switch that cannot be read pauses nothing (logged). */
  async #paused(): Promise<boolean> {
    try {
      return (await this.settings.pause.state()).paused;
    } catch (error) {
      this.#logError(error, 'reading the pause switch failed: the message was let through');
      return false;
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

  #logError(error: unknown, what: string): string {
    return logErrorWithId(this.settings.logger, error, what);
  }
}
