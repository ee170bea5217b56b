/**
 * Answers the history could not store yet (PostgreSQL down, a full disk) are not thrown
 * away: they are kept, and tried again with backoff until the history takes them. Where
 * they are kept is an `AnswerKeeper`: a spool in the data folder for one instance
 * (history/answer-spool.ts, in memory without a data folder), Redis when several share
 * the sessions (cluster/redis-answer-keeper.ts), so that another instance, or the next
 * start, stores what a dead one kept.
 *
 * `KeptAnswers` is the trying again: while a turn waits for its answer to be stored
 * (answer-storage.ts), after it stopped waiting (in the background), at a start (every
 * answer kept, before the stale running marks are resolved), and before a session's next
 * turn (whose question must come after the answer it follows).
 */
import { AnswerSpool, keptAnswerKey, type SpooledAnswer } from '../history/answer-spool.js';
import type { HistoryStore } from '../history/store.js';
import type { Logger } from '../util/logger.js';

/** An answer waiting to be stored: the turn's final message, under its session and turn. */
export type KeptAnswer = SpooledAnswer;

/** Where kept answers wait. Each method may reject when its own storage is unreachable, but `keep`. */
export interface AnswerKeeper {
  /** Keeps the answer (replacing one kept for the same turn). Never rejects: held in memory when it cannot be written. */
  keep(answer: KeptAnswer): Promise<void>;
  /** The answer kept for the turn, no longer kept; undefined when there is none. */
  take(sessionId: string, turnId: string): Promise<KeptAnswer | undefined>;
  /** The answers kept, of one session or of all. */
  list(sessionId?: string): Promise<KeptAnswer[]>;
}

export interface KeptAnswersOptions {
  store: HistoryStore;
  logger: Pick<Logger, 'info' | 'error'>;
  /** Where answers wait: in memory by default (a server without a data folder). */
  keeper?: AnswerKeeper;
  /** How long a turn stays open for its answer to be stored before it ends for its tabs (default 2 minutes). */
  maxWaitMs?: number;
  /** The wait before the first retry (default 1 s); each next one doubles. */
  firstRetryMs?: number;
  /** The longest wait between two attempts (default 30 s). */
  maxRetryMs?: number;
}

/** How storing a kept answer once went: stored, or refused because its turn was ended elsewhere (never tried again). */
export type KeptOutcome = 'stored' | 'fenced';

export class KeptAnswers {
  readonly keeper: AnswerKeeper;
  readonly store: HistoryStore;
  readonly maxWaitMs: number;
  readonly #logger: Pick<Logger, 'info' | 'error'>;
  readonly #firstRetryMs: number;
  readonly #maxRetryMs: number;
  /** The answers tried again in the background, by `<sessionId> <turnId>`. */
  readonly #background = new Map<string, NodeJS.Timeout>();
  #closed = false;

  constructor(options: KeptAnswersOptions) {
    this.store = options.store;
    this.keeper = options.keeper ?? new AnswerSpool();
    this.#logger = options.logger;
    this.maxWaitMs = options.maxWaitMs ?? 120_000;
    this.#firstRetryMs = options.firstRetryMs ?? 1_000;
    this.#maxRetryMs = options.maxRetryMs ?? 30_000;
  }

  /**
   * The wait before attempt `attempt` (2 is the first retry): doubling from the first
   * retry's, at most the longest, each within ±20% so that the answers an outage held
   * are not all tried again at the same moment when it ends.
   */
  delayBefore(attempt: number, random: () => number = Math.random): number {
    const base = Math.min(this.#maxRetryMs, this.#firstRetryMs * 2 ** Math.max(0, attempt - 2));
    return Math.min(this.#maxRetryMs, Math.round(base * (0.8 + 0.4 * random())));
  }

  /** Keeps an answer the history refused for now. Never rejects (the keeper holds it in memory then). */
  async keep(answer: KeptAnswer): Promise<void> {
    try {
      await this.keeper.keep(answer);
    } catch (error) {
      this.#logger.error({ err: error, sessionId: answer.sessionId }, 'keeping an unsaved answer failed');
    }
  }

  /**
   * Stores a kept answer once. Throws when the history still fails; otherwise it is no
   * longer kept: stored, or fenced (its turn was ended elsewhere: another instance ended
   * it, so its own answer stands), which is never tried again.
   */
  async storeOnce(answer: KeptAnswer): Promise<KeptOutcome> {
    const stored = await this.store.endTurn(answer.sessionId, answer.message, answer.turnId);
    await this.#forget(answer.sessionId, answer.turnId);
    return stored ? 'stored' : 'fenced';
  }

  /**
   * Goes on trying an answer in the background, from attempt `attempt`, until it is
   * stored or fenced, or `stopped` says the server is going down (the keeper keeps it for
   * the next start then). Once per answer.
   */
  retryInBackground(answer: KeptAnswer, attempt: number, stopped: () => boolean = () => false): void {
    const key = keptAnswerKey(answer.sessionId, answer.turnId);
    if (this.#closed || this.#background.has(key)) return;
    const schedule = (next: number) => {
      const timer = setTimeout(() => {
        if (this.#closed || stopped() || this.#background.get(key) !== timer) return;
        this.storeOnce(answer).then(
          (outcome) => {
            this.#background.delete(key);
            this.#logger.info(
              { sessionId: answer.sessionId, outcome, attempts: next, waitedMs: Date.now() - answer.keptAt },
              outcome === 'stored'
                ? 'a kept answer was stored'
                : 'a kept answer was dropped: its turn was ended elsewhere',
            );
          },
          () => {
            if (this.#background.get(key) === timer) schedule(next + 1);
          },
        );
      }, this.delayBefore(next));
      // Waiting answers never hold the process up: the keeper has them for the next start.
      timer.unref();
      this.#background.set(key, timer);
    };
    schedule(attempt);
  }

  /**
   * Stores now every answer kept for the session, so that a new question there comes
   * after the answer it follows (else the history would resolve the old turn's running
   * mark as unsaved and fence its answer out). Throws when one cannot be stored.
   */
  async storeSession(sessionId: string): Promise<void> {
    for (const answer of await this.keeper.list(sessionId)) await this.storeOnce(answer);
  }

  /**
   * At a start: stores every answer kept (a turn another instance runs now, by
   * `stillRunning`, is left to it); those the history still refuses are tried again in
   * the background. Never rejects (what fails is logged).
   */
  async storeAll(stillRunning?: (sessionId: string) => Promise<boolean>): Promise<void> {
    let answers: KeptAnswer[];
    try {
      answers = await this.keeper.list();
    } catch (error) {
      this.#logger.error({ err: error }, 'reading the answers kept unsaved failed');
      return;
    }
    const counts = { stored: 0, fenced: 0, waiting: 0 };
    for (const answer of answers) {
      try {
        if (stillRunning && (await stillRunning(answer.sessionId))) continue;
        counts[await this.storeOnce(answer)]++;
      } catch (error) {
        if (!counts.waiting) this.#logger.error({ err: error }, 'storing the answers kept unsaved failed');
        counts.waiting++;
        this.retryInBackground(answer, 2);
      }
    }
    if (answers.length) this.#logger.info(counts, 'answers kept unsaved by the last run were stored');
  }

  /** Whether an answer of the session waits to be stored (a start leaves its running mark alone). */
  async holds(sessionId: string): Promise<boolean> {
    return (await this.keeper.list(sessionId)).length > 0;
  }

  /**
   * The answer kept for the turn, handed to the caller and no longer kept nor tried
   * again: for an instance that ends the turn of a dead one, which stores this answer
   * rather than the partial one its buffer has. Should storing it fail, `keep` it again.
   */
  async take(sessionId: string, turnId: string): Promise<KeptAnswer | undefined> {
    this.#stopTrying(keptAnswerKey(sessionId, turnId));
    return this.keeper.take(sessionId, turnId);
  }

  /** Stops every retry in the background (at shutdown); the keeper keeps what waits. */
  close(): void {
    this.#closed = true;
    for (const key of [...this.#background.keys()]) this.#stopTrying(key);
  }

  /** No longer kept (stored or fenced); a failure to forget is harmless: its next try is fenced. */
  async #forget(sessionId: string, turnId: string): Promise<void> {
    this.#stopTrying(keptAnswerKey(sessionId, turnId));
    try {
      await this.keeper.take(sessionId, turnId);
    } catch (error) {
      this.#logger.error({ err: error, sessionId }, 'removing a stored answer from the keeper failed');
    }
  }

  #stopTrying(key: string): void {
    clearTimeout(this.#background.get(key));
    this.#background.delete(key);
  }
}
