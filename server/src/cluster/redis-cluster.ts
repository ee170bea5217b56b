/**
 * Sessions shared by several instances through Redis: the coordination of
 * sessions/coordination.ts when this instance is not the only one (LocalCoordination is
 * the one when it is). A lease per running turn (`SET NX PX`, renewed, fenced by a
 * generation), the frames of every turn in a Redis Stream per session with a snapshot
 * for new tabs, stops and approval decisions by broadcast and by a key the owner reads at
 * each renewal, and a watch that notices when a turn's owner died (its lease gone twice
 * in a row).
 */
import { randomBytes } from 'node:crypto';
import type { ServerFrame } from '@aalis/protocol';
import type { Logger } from '../util/log-error.js';
import type {
  ApprovalDecision,
  FollowHandlers,
  OrphanSweep,
  OwnerRequests,
  SessionCoordination,
  TurnLease,
} from '../sessions/coordination.js';
import { FrameFollower } from './frame-follower.js';
import { channels, runningTurnsKey, sessionKeys } from './keys.js';
import { OwnedTurn, type OwnedTurnOptions } from './owned-turn.js';
import type { RedisConnections } from './redis-connections.js';
import { claimTurn } from './scripts.js';

export interface RedisClusterOptions {
  /** A turn's lease: how long an owner that stopped renewing is waited for (default 10 s). */
  leaseMs?: number;
  /** Key prefix (default `aalis:`), for several deployments on one Redis. */
  prefix?: string;
  /** Entries a session's log keeps at most, approximately (default 10,000). */
  maxFrames?: number;
  /** Least time between two snapshots of a running turn (default 250 ms). */
  snapshotEveryMs?: number;
  /** How long a session's log outlives its turn (default 5 minutes). */
  framesTtlMs?: number;
}

/** How long a new session with no message stays known to other instances. */
const ANNOUNCED_MS = 60 * 60_000;

export class RedisSessionCluster implements SessionCoordination {
  /** Unique per process: the origin of its stream entries, the holder named by its leases. */
  readonly instanceId = `${process.pid}-${randomBytes(6).toString('base64url')}`;
  readonly #follower: FrameFollower;
  readonly #following = new Map<string, { handlers: FollowHandlers; ready: Promise<void> }>();
  readonly #owned = new Map<string, { turnId: string; turn: OwnedTurn }>();
  /** Sessions whose owner's lease was found missing once (by turn id). */
  readonly #missing = new Map<string, string>();
  readonly #watch: NodeJS.Timeout;
  readonly #prefix: string;
  readonly #turnOptions: OwnedTurnOptions;

  constructor(
    private readonly redis: RedisConnections,
    private readonly logger: Logger,
    options: RedisClusterOptions = {},
  ) {
    const leaseMs = options.leaseMs ?? 10_000;
    this.#prefix = options.prefix ?? 'aalis:';
    this.#turnOptions = {
      instanceId: this.instanceId,
      leaseMs,
      maxFrames: options.maxFrames ?? 10_000,
      snapshotEveryMs: options.snapshotEveryMs ?? 250,
      snapshotTtlMs: Math.max(10 * 60_000, leaseMs * 6),
      framesTtlMs: options.framesTtlMs ?? 5 * 60_000,
    };
    this.#follower = new FrameFollower(redis.command, redis.blocking, {
      prefix: this.#prefix,
      instanceId: this.instanceId,
      logger,
    });
    this.#watch = setInterval(() => void this.#watchOwners(), Math.max(100, Math.floor(leaseMs / 2)));
    this.#watch.unref();
    const { abort, decision, shared } = channels(this.#prefix);
    redis.subscriber.on('message', (channel: string, text: string) =>
      channel === shared ? this.#shared(text) : this.#request(channel, text),
    );
    void redis.subscriber
      .subscribe(abort, decision, shared)
      .catch((error: unknown) =>
        logger.error(
          { err: (error as Error).message },
          'subscribing to stops and decisions failed: the owner reads them at its next renewal',
        ),
      );
  }

  follow(sessionId: string, handlers: FollowHandlers): Promise<void> {
    const known = this.#following.get(sessionId);
    if (known) return known.ready;
    const ready = this.#follower.resumePoint(sessionId).then(
      async (point) => {
        if (this.#following.get(sessionId)?.ready !== ready) return;
        this.#follower.add(sessionId, point, handlers.frames);
        // The snapshot first, then the entries after it, read up to the log's end now:
        // a new tab's resume is as fresh as a tab's on the instance running the turn.
        if (point.turn) handlers.frames([point.turn.resume]);
        await this.#follower.caughtUp(sessionId, point.end);
      },
      (error: unknown) => {
        // Redis unreachable: the tab is served from the history now, and the session
        // is read from its resume point once Redis is back.
        this.logger.warn({ sessionId, err: (error as Error).message }, 'following a session waits for Redis');
        if (this.#following.get(sessionId)?.ready === ready)
          this.#follower.add(sessionId, { position: '0-0', end: '0-0', first: '0-0' }, handlers.frames, {
            resync: true,
          });
      },
    );
    this.#following.set(sessionId, { handlers, ready });
    return ready;
  }

  unfollow(sessionId: string): void {
    this.#following.delete(sessionId);
    this.#follower.remove(sessionId);
    this.#missing.delete(sessionId);
  }

  async claim(sessionId: string, turnId: string, requests: OwnerRequests): Promise<TurnLease | 'busy'> {
    const keys = sessionKeys(this.#prefix, sessionId);
    const { instanceId, leaseMs } = this.#turnOptions;
    const generation = `${instanceId}:${turnId}`;
    const claimed = await claimTurn(this.redis.command, keys, { instanceId, generation, turnId }, leaseMs);
    if (claimed.busy) return 'busy';
    const { lastId } = claimed;
    const turn = new OwnedTurn(
      this.redis.command,
      sessionId,
      turnId,
      keys,
      generation,
      requests,
      this.#turnOptions,
      this.logger,
      () => {
        if (this.#owned.get(sessionId)?.turn !== turn) return;
        this.#owned.delete(sessionId);
        this.#follower.resume(sessionId);
        this.redis.command.zrem(runningTurnsKey(this.#prefix), sessionId).catch(() => {});
      },
    );
    // Everything published before the claim reaches this instance's tabs before the
    // turn's own frames; a read that cannot get there in time gives the turn up again.
    if (!(await this.#follower.caughtUp(sessionId, lastId))) {
      await turn.release();
      throw new Error('the shared log could not be read up to the claim in time');
    }
    this.#follower.pause(sessionId);
    this.#owned.set(sessionId, { turnId, turn });
    this.#markRunning([sessionId]);
    return turn;
  }

  async requestAbort(sessionId: string, turnId: string): Promise<void> {
    const keys = sessionKeys(this.#prefix, sessionId);
    await this.redis.command.set(keys.abort, turnId, 'PX', 60_000);
    await this.redis.command.publish(channels(this.#prefix).abort, JSON.stringify({ sessionId, turnId }));
  }

  async passDecision(sessionId: string, decision: ApprovalDecision): Promise<void> {
    const keys = sessionKeys(this.#prefix, sessionId);
    const text = JSON.stringify(decision);
    // The first decision wins, as on one instance.
    await this.redis.command.hsetnx(keys.decisions, decision.callId, text);
    await this.redis.command.pexpire(keys.decisions, 60 * 60_000);
    await this.redis.command.publish(
      channels(this.#prefix).decision,
      JSON.stringify({ sessionId, decision }),
    );
  }

  async announce(sessionId: string, owner: string | null): Promise<void> {
    await this.redis.command.set(
      sessionKeys(this.#prefix, sessionId).announced,
      owner ?? '',
      'PX',
      ANNOUNCED_MS,
    );
  }

  async announcedOwner(sessionId: string): Promise<string | null | undefined> {
    const owner = await this.redis.command.get(sessionKeys(this.#prefix, sessionId).announced);
    return owner === null ? undefined : owner || null;
  }

  remoteTurn(sessionId: string): string | undefined {
    return this.#follower.remoteTurn(sessionId);
  }

  /** Every instance's, as Redis counts them: this one's own count is not needed. */
  async runningTurns(): Promise<number> {
    const key = runningTurnsKey(this.#prefix);
    const [, count] = (await this.redis.command
      .multi()
      .zremrangebyscore(key, '-inf', Date.now())
      .zcard(key)
      .exec()) as [[Error | null, number], [Error | null, number]];
    if (count[0]) throw count[0];
    return count[1];
  }

  /** The turns this instance runs count as running for a lease from now (renewed by the watch). */
  #markRunning(sessionIds: string[]): void {
    if (!sessionIds.length) return;
    const until = Date.now() + this.#turnOptions.leaseMs;
    const members = sessionIds.flatMap((id) => [until, id]);
    this.redis.command.zadd(runningTurnsKey(this.#prefix), ...members).catch(() => {});
  }

  async isRunning(sessionId: string): Promise<boolean> {
    return (await this.redis.command.exists(sessionKeys(this.#prefix, sessionId).lease)) === 1;
  }

  /**
   * Whether the session's turn lost its owner: no instance held it at two looks `apartMs`
   * apart (half a lease by default; a renewal comes every third of one).
   */
  async ownerGone(sessionId: string, apartMs = this.#turnOptions.leaseMs / 2): Promise<boolean> {
    if (await this.isRunning(sessionId)) return false;
    await new Promise((resolve) => setTimeout(resolve, apartMs));
    return !(await this.isRunning(sessionId));
  }

  /**
   * How often an instance looks for turns whose owner died with no tab left to notice
   * (the history's running marks without a lease).
   */
  get sweepEveryMs(): number {
    return this.#turnOptions.leaseMs * 6;
  }

  /**
   * Sweeps every `sweepEveryMs`, each mark's owner looked for twice a third of that
   * apart: slower than the watch of an instance with a tab on the session (two looks half
   * a lease apart), so that one, which keeps the answer so far, ends the turn first.
   */
  scheduleOrphanSweeps(sweep: OrphanSweep): () => void {
    const every = this.sweepEveryMs;
    const timer = setInterval(() => void sweep((sessionId) => this.ownerGone(sessionId, every / 3)), every);
    timer.unref();
    return () => clearInterval(timer);
  }

  async close(): Promise<void> {
    clearInterval(this.#watch);
    await this.#follower.close();
    await this.redis.close();
  }

  share(sessionId: string, frameJson: string): void {
    const message = JSON.stringify({ from: this.instanceId, sessionId, text: frameJson });
    this.redis.command
      .publish(channels(this.#prefix).shared, message)
      .catch((error: unknown) =>
        this.logger.warn(
          { err: (error as Error).message, sessionId },
          'sharing a frame with the other instances failed',
        ),
      );
  }

  /** A frame another instance shared: for this one's tabs on the session, if it has any. */
  #shared(message: string): void {
    let shared: { from?: string; sessionId?: string; text?: string };
    try {
      shared = JSON.parse(message) as typeof shared;
      if (shared.from === this.instanceId || !shared.sessionId || !shared.text) return;
      const handlers = this.#following.get(shared.sessionId)?.handlers;
      handlers?.frames([{ frame: JSON.parse(shared.text) as ServerFrame, text: shared.text }]);
    } catch {
      // Not one of ours: nothing to deliver.
    }
  }

  /** A stop or a decision broadcast by another instance: for the owner of the turn, if that is this one. */
  #request(channel: string, text: string): void {
    let request: { sessionId?: string; turnId?: string; decision?: ApprovalDecision };
    try {
      request = JSON.parse(text) as typeof request;
    } catch {
      return;
    }
    const owned = request.sessionId === undefined ? undefined : this.#owned.get(request.sessionId);
    if (!owned) return;
    const { abort, decision } = channels(this.#prefix);
    if (channel === abort && request.turnId === owned.turnId) owned.turn.abort();
    if (channel === decision && request.decision) owned.turn.decide(request.decision);
  }

  /**
   * Turns other instances run, on sessions this one has tabs on: a lease found missing
   * twice in a row (half a lease apart) means its owner died; the hub ends the turn.
   */
  async #watchOwners(): Promise<void> {
    this.#markRunning([...this.#owned.keys()]);
    const running = [...this.#follower.remoteTurns()].filter(([sessionId]) => !this.#owned.has(sessionId));
    if (!running.length) return;
    let exists: number[];
    try {
      exists = await Promise.all(
        running.map(([sessionId]) => this.redis.command.exists(sessionKeys(this.#prefix, sessionId).lease)),
      );
    } catch {
      return; // Redis unreachable: nobody can be presumed dead now.
    }
    running.forEach(([sessionId, turnId], i) => {
      if (exists[i]) return void this.#missing.delete(sessionId);
      if (this.#missing.get(sessionId) !== turnId) return void this.#missing.set(sessionId, turnId);
      this.#missing.delete(sessionId);
      this.#following.get(sessionId)?.handlers.ownerGone(turnId);
    });
  }
}
