/**
 * Turns whose instance died mid-turn (several instances share the sessions). Nothing
 * here runs with one instance: the coordination tells of a dead owner (`ownerGone`) and
 * schedules the sweeps only when other instances exist.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, type ChatMessage, type ChatView } from '@aalis/protocol';
import { forClients } from '../agent/stored-message.js';
import { logErrorWithId } from '../util/log-error.js';
import type { KeptAnswer } from './answer-keeper.js';
import { markedUnsaved, unsavedError, withoutArguments } from './answer-storage.js';
import type { TurnLease } from './coordination.js';
import type { HubSettings } from './hub-options.js';
import { PendingApprovals } from './pending-approvals.js';
import { RunningTurn } from './running-turn.js';
import type { SessionBroadcast } from './session-broadcast.js';
import type { Session, SessionRegistry } from './session-registry.js';

export class OrphanedTurns {
  #sweeping = false;

  constructor(
    private readonly settings: HubSettings,
    private readonly registry: SessionRegistry,
    private readonly broadcast: SessionBroadcast,
  ) {}

  /**
   * The turn `turnId` runs on no instance any more: its owner died mid-turn. One instance
   * (the one that wins the lease) ends it for everyone: the answer so far, as this
   * instance's buffer has it, stored as failed with `interrupted`; a tool call that
   * started and never ended is kept as "may have completed" and never run again. When the
   * dead owner had stored its answer after all, that answer is sent instead.
   */
  async end(session: Session, turnId: string): Promise<void> {
    if (session.turn || session.claiming || this.registry.remoteTurn(session) !== turnId) return;
    // Held in memory, and no send of this instance claims meanwhile, until it is done.
    session.claiming = true;
    await this.registry.holding(session, async () => {
      try {
        await this.#end(session, turnId);
      } finally {
        session.claiming = false;
      }
    });
  }

  async #end(session: Session, turnId: string): Promise<void> {
    const { coordination } = this.settings;
    const sessionId = session.id;
    // A `message` (or a new turn's `user_message`) read during the claim moves this.
    const epoch = session.epoch;
    let lease: TurnLease | 'busy';
    try {
      lease = await coordination.claim(sessionId, `orphan:${turnId}`, { abort: () => {}, decide: () => {} });
    } catch (error) {
      this.#logError(error, 'ending a turn whose instance died failed: the shared state cannot be reached');
      return;
    }
    if (lease === 'busy') return; // Another instance ends it (or a new turn began).
    // Everything before the claim was read meanwhile: the turn may have ended after all.
    if (session.epoch !== epoch) return void (await lease.release());
    // From the end on, a send of a tab waits for the lease to be given up (session.ending).
    let done = () => {};
    const ended = new Promise<void>((resolve) => (done = resolve));
    session.ending = ended;
    try {
      await this.finish(session, turnId, lease);
    } finally {
      await lease.release();
      session.claiming = false;
      done();
      if (session.ending === ended) session.ending = undefined;
      this.registry.forgetIfIdle(session);
    }
  }

  /**
   * Ends the turn `turnId`, whose owner is gone, for everyone, under `lease` (this
   * instance's, claimed after it). Its end is, in that order: the answer its owner kept
   * while the history refused it (stored now, whole); the end the history already holds
   * (the owner stored it, then died); or the answer so far as this instance's buffer has
   * it, stored `interrupted` (`aborted` when a Stop was recorded for it). Also called by a
   * new turn that finds the session's last turn never ended, before its own question.
   * Never throws: a store that fails is logged, and the history's running mark is then
   * resolved by the next turn or start.
   */
  async finish(session: Session, turnId: string, lease: TurnLease): Promise<void> {
    const { store, now, logger } = this.settings;
    const sessionId = session.id;
    const approvals = PendingApprovals.closed(sessionId, now);
    session.turn = new RunningTurn({ id: turnId, lease, startedAt: now(), approvals, visitor: undefined });
    try {
      const kept = await this.#keptAnswer(sessionId, turnId);
      if (kept && (await this.#storeKept(kept))) return;
      const unfinished = await store.unfinishedTools(sessionId, turnId);
      // A Stop recorded for the turn before its owner died: ended as the visitor asked.
      const stopped = lease.stopRecorded === turnId;
      const error = {
        code: ErrorCode.Interrupted,
        message: 'the server running this answer stopped before it was finished',
      };
      const answer = orphanedAnswer(session.view, now());
      const message: ChatMessage = stopped
        ? { ...answer, status: 'aborted' }
        : { ...answer, status: 'error', error };
      if (await store.endTurn(sessionId, message, turnId)) {
        this.#tell(sessionId, message, stopped ? [] : [error]);
      } else {
        // The owner stored its answer, then died before every tab had it.
        // Or another instance's look marked it failed: its tabs hear why, as with any end.
        const last = (await store.page(sessionId, { limit: 1 })).messages[0];
        if (last?.role === 'assistant')
          this.#tell(sessionId, forClients(last), last.error ? [last.error] : []);
      }
      logger.info(
        { sessionId, turnId, toolsMayHaveCompleted: unfinished.length, stopped },
        'ended a turn whose instance died',
      );
    } catch (error) {
      this.#logError(error, 'ending a turn whose instance died failed');
    } finally {
      session.turn = undefined;
    }
  }

  /** A turn's end for every tab: why it failed, if it did, then its final message. */
  #tell(
    sessionId: string,
    message: ChatMessage,
    errors: ReadonlyArray<{ code: string; message: string }>,
  ): void {
    for (const error of errors) this.broadcast.toSession(sessionId, { type: 'error', sessionId, ...error });
    this.broadcast.toSession(sessionId, { type: 'message', sessionId, message: withoutArguments(message) });
  }

  /** The answer a dead owner kept for the turn, taken from the keeper; none when it cannot be read. */
  async #keptAnswer(sessionId: string, turnId: string): Promise<KeptAnswer | undefined> {
    try {
      return await this.settings.keeper.take(sessionId, turnId);
    } catch (error) {
      this.#logError(error, 'reading the answers kept unsaved failed');
      return undefined;
    }
  }

  /**
   * Stores a dead owner's kept answer and sends it to the tabs as its end. While the
   * history still refuses it, it is kept again and tried in the background, and the tabs
   * get it marked as not saved yet (as its owner would have told them). False when the
   * history fenced it (the turn was ended elsewhere: that end stands).
   */
  async #storeKept(kept: KeptAnswer): Promise<boolean> {
    const keeper = this.settings.keeper;
    let message = forClients(kept.message);
    const errors = message.error ? [message.error] : [];
    try {
      if ((await keeper.storeOnce(kept)) === 'fenced') return false;
    } catch (thrown) {
      const unsaved = unsavedError(
        this.#logError(thrown, "storing a dead instance's kept answer failed: kept again"),
      );
      await keeper.keep(kept);
      keeper.retryInBackground(kept, 2);
      message = markedUnsaved(message, unsaved);
      errors.push(unsaved);
    }
    this.#tell(kept.sessionId, message, errors);
    return true;
  }

  /**
   * The owner of the session's turn `turnId` is late to renew its lease: this instance's
   * tabs are told (`turn_status` `unresponsive`) while the lease runs out, so that none
   * sits silent. Only this instance's: every instance with tabs watches for its own.
   */
  late(session: Session, turnId: string): void {
    if (session.turn || this.registry.remoteTurn(session) !== turnId) return;
    this.broadcast.take(session, { type: 'turn_status', sessionId: session.id, state: 'unresponsive' });
  }

  /** The late owner renews again: the tabs get the turn as it stands, without that status. */
  back(session: Session, turnId: string): void {
    const turn = session.view.turn;
    if (session.turn || this.registry.remoteTurn(session) !== turnId) return;
    if (turn?.status?.state !== 'unresponsive') return;
    const { status: _late, ...rest } = turn;
    session.view = { ...session.view, turn: rest };
    const resume = this.broadcast.resume(session);
    if (resume) this.broadcast.take(session, resume);
  }

  /**
   * Turns whose instance died while no tab was on their session (so no instance watched
   * their lease) stay marked running in the history. Every instance looks now and then;
   * a mark whose owner is gone is ended as interrupted (the history resolves each mark
   * once, whoever looks). A session this instance follows is left to the watch, which
   * keeps the answer so far.
   */
  async sweep(ownerGone: (sessionId: string) => Promise<boolean>): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const ended = await this.settings.store.recoverInterruptedTurns(async (sessionId) => {
        const session = this.registry.get(sessionId);
        if (session && this.registry.answering(session)) return true;
        // An answer kept unsaved for the session: its keeper stores it, never `interrupted`.
        if (await this.settings.keeper.holds(sessionId).catch(() => true)) return true;
        // Slower than the watch of an instance with a tab on the session, so that one,
        // which keeps the answer so far, ends the turn first (the coordination's timing).
        return !(await ownerGone(sessionId));
      });
      if (ended)
        this.settings.logger.info(
          { turns: ended },
          'turns whose instance died, with no tab left, were marked failed',
        );
    } catch (error) {
      this.#logError(error, 'looking for turns whose instance died failed');
    } finally {
      this.#sweeping = false;
    }
  }

  #logError(error: unknown, what: string): string {
    return logErrorWithId(this.settings.logger, error, what);
  }
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
