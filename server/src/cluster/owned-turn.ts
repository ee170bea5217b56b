/**
 * A turn this instance runs under its lease (the coordination's `TurnLease`): renews the
 * lease while the turn runs, and writes the turn's frames to the session's log in one
 * script call per tick, with a snapshot for new tabs at most every `snapshotEveryMs`.
 * The renewal also brings what other instances asked of the turn while a broadcast may
 * have been missed: a stop, approval decisions.
 *
 * Redis unreachable: the turn goes on and its own instance's tabs get every frame; other
 * instances' tabs get the turn as it stands (a fresh snapshot) once Redis is back. Fenced
 * (another instance took the turn over): the turn is stopped and writes nothing more.
 */
import type { StreamResumeFrame } from '@aalis/protocol';
import type { Logger } from '../util/log-error.js';
import {
  decisionKey,
  type OwnerRequests,
  type TurnDecision,
  type TurnLease,
} from '../sessions/coordination.js';
import type { SessionKeys } from './keys.js';
import { appendFrames, renewTurn, type ScriptedRedis, type Writer } from './scripts.js';

export interface OwnedTurnOptions {
  instanceId: string;
  leaseMs: number;
  /** Entries a session's log keeps (approximately: `MAXLEN ~`). */
  maxFrames: number;
  snapshotEveryMs: number;
  /** How long a snapshot outlives its last write (a turn that is never ended). */
  snapshotTtlMs: number;
  /** How long the log outlives its turn, for tabs still reading it. */
  framesTtlMs: number;
}

export class OwnedTurn implements TurnLease {
  #owned = true;
  #batch: string[] = [];
  #resume: (() => StreamResumeFrame | null) | undefined;
  #flushScheduled = false;
  #lastSnapshotAt = 0;
  #forceSnapshot = true;
  #unreachable = false;
  /** Readers may have missed frames (a failed write, Redis lost its data): the next snapshot goes into the log. */
  #resetReaders = false;
  #writes: Promise<void> = Promise.resolve();
  readonly #decided = new Set<string>();
  readonly #renewTimer: NodeJS.Timeout;
  readonly #writer: Writer;

  constructor(
    private readonly redis: ScriptedRedis,
    private readonly sessionId: string,
    private readonly turnId: string,
    private readonly keys: SessionKeys,
    /** This claim's fencing token (scripts.ts). */
    private readonly generation: string,
    private readonly requests: OwnerRequests,
    private readonly options: OwnedTurnOptions,
    private readonly logger: Logger,
    private readonly onEnd: () => void,
    /** The turn a Stop was recorded for at the claim (TurnLease `stopRecorded`). */
    readonly stopRecorded?: string | undefined,
    /** The turn of the claim before, when it never ended (TurnLease `unended`). */
    readonly unended?: string | undefined,
  ) {
    this.#writer = { instanceId: options.instanceId, generation, turnId };
    this.#renewTimer = setInterval(() => void this.#renew(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.#renewTimer.unref();
  }

  get owned(): boolean {
    return this.#owned;
  }

  publish(frameJson: () => string, resume: () => StreamResumeFrame | null): void {
    if (!this.#owned) return;
    this.#batch.push(frameJson());
    this.#resume = resume;
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush(false));
  }

  async release(): Promise<void> {
    clearInterval(this.#renewTimer);
    this.#flush(true);
    await this.#writes;
    this.onEnd();
  }

  /**
   * Redis is reachable again (a new connection): the lease is put back at once, before
   * another instance may presume this one dead (if Redis lost its data, its claims wait a
   * lease for this), and the next write carries a snapshot into the log, for tabs whose
   * frames Redis may have lost.
   */
  reassert(): void {
    if (!this.#owned) return;
    this.#forceSnapshot = true;
    this.#resetReaders = true;
    void this.#renew();
    // Even when nothing streams now (a tool runs): the snapshot goes out at once.
    this.#scheduleFlush();
  }

  /** A request passed by broadcast (or read at a renewal): applied once. */
  decide(decision: TurnDecision): void {
    const key = decisionKey(decision);
    if (this.#decided.has(key)) return;
    this.#decided.add(key);
    this.requests.decide(decision);
  }

  abort(): void {
    this.requests.abort();
  }

  #flush(end: boolean): void {
    this.#flushScheduled = false;
    const frames = this.#batch;
    this.#batch = [];
    if (!this.#owned || (!frames.length && !end && !this.#resetReaders)) return;
    const now = Date.now();
    const due = this.#forceSnapshot || now - this.#lastSnapshotAt >= this.options.snapshotEveryMs;
    const snapshot = !end && due ? JSON.stringify(this.#resume?.() ?? null) : '';
    if (snapshot && snapshot !== 'null') {
      this.#lastSnapshotAt = now;
      this.#forceSnapshot = false;
      // A write failed before this one (or Redis lost what it had): those frames never
      // reached the other instances' tabs. The snapshot goes into the log after this
      // batch, so that every reader is reset to the turn exactly as it stands.
      if (this.#resetReaders) frames.push(snapshot);
      this.#resetReaders = false;
    }
    const { keys, options } = this;
    // Chained: the script calls of a turn leave in order (one connection keeps that too).
    const write = appendFrames(this.redis, keys, this.#writer, frames, {
      maxFrames: options.maxFrames,
      snapshot: snapshot === 'null' ? '' : snapshot,
      snapshotTtlMs: options.snapshotTtlMs,
      end,
      framesTtlMs: options.framesTtlMs,
    }).then(
      (result) => {
        if (result.fenced) return this.#fenced();
        if (this.#unreachable)
          this.logger.info({ sessionId: this.sessionId }, 'the turn writes to Redis again');
        this.#unreachable = false;
      },
      (error: unknown) => this.#failed(error, "writing the turn's frames to Redis failed"),
    );
    this.#writes = this.#writes.then(() => write);
  }

  async #renew(): Promise<void> {
    if (!this.#owned) return;
    const { keys } = this;
    try {
      const result = await renewTurn(this.redis, keys, this.#writer, this.options.leaseMs);
      if (result.fenced) return this.#fenced();
      if (result.aborted) this.requests.abort();
      for (const decision of result.decisions) this.decide(JSON.parse(decision) as TurnDecision);
      this.#unreachable = false;
    } catch (error) {
      this.#failed(error, "renewing the turn's lease failed");
    }
  }

  /** Another instance took the turn over: this one stops and writes nothing more. */
  #fenced(): void {
    if (!this.#owned) return;
    this.#owned = false;
    clearInterval(this.#renewTimer);
    this.logger.error(
      { sessionId: this.sessionId, turnId: this.turnId },
      'another instance took this turn over (this one was presumed dead): it is stopped',
    );
    this.requests.abort();
  }

  /** Redis unreachable: the turn finishes here; said once per turn, and a fresh snapshot is due when it is back. */
  #failed(error: unknown, what: string): void {
    this.#forceSnapshot = true;
    this.#resetReaders = true;
    if (this.#unreachable) return;
    this.#unreachable = true;
    this.logger.error(
      { sessionId: this.sessionId, err: (error as Error).message },
      `${what}: the turn finishes on this instance; other instances' tabs catch up when Redis is back`,
    );
  }
}
