/**
 * Sessions shared by several instances through Redis: the coordination of
 * sessions/coordination.ts when this instance is not the only one (LocalCoordination is
 * the one when it is). A lease per running turn (`SET NX PX`, renewed, fenced by a
 * generation), the frames of every turn in a Redis Stream per session with a snapshot
 * for new tabs, stops and approval decisions by broadcast and by a key the owner reads at
 * each renewal (and the instance that ends a dead owner's turn), and a watch that tells
 * tabs when a turn's owner is late to renew, and ends the turn once its lease expired.
 * After Redis lost its data, every owner puts its leases back as soon as it reconnects,
 * and nobody takes a session over before an owner has had a lease's time to do so.
 */
import { randomBytes } from 'node:crypto';
import type { ServerFrame } from '@aalis/protocol';
import type { Logger } from '../util/log-error.js';
import {
  decisionKey,
  type TurnDecision,
  type FollowHandlers,
  type OrphanSweep,
  type OwnerRequests,
  type SessionCoordination,
  type TurnLease,
} from '../sessions/coordination.js';
import { FrameFollower } from './frame-follower.js';
import { channels, runningTurnsKey, sessionKeys } from './keys.js';
import { OwnedTurn, type OwnedTurnOptions } from './owned-turn.js';
import type { RedisConnections } from './redis-connections.js';
import { claimTurn, ownerState, type ClaimOptions } from './scripts.js';

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
  readonly shared = true;
  /** Unique per process: the origin of its stream entries, the holder named by its leases. */
  readonly instanceId = `${process.pid}-${randomBytes(6).toString('base64url')}`;
  readonly #follower: FrameFollower;
  readonly #following = new Map<string, { handlers: FollowHandlers; ready: Promise<void> }>();
  readonly #owned = new Map<string, { turnId: string; turn: OwnedTurn }>();
  /** Sessions whose owner is late to renew (by turn id): their tabs were told. */
  readonly #late = new Map<string, string>();
  readonly #watch: NodeJS.Timeout;
  /** Without a renewal for longer than this, an owner is late: a renewal plus some slack. */
  readonly #lateAfterMs: number;
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
    // Every tenth of a lease (at most every half second): a late owner is told within a
    // renewal and a second (4.4 s at the default lease), a dead one's turn ended within
    // its lease and half a second.
    this.#watch = setInterval(
      () => void this.#watchOwners(),
      Math.max(50, Math.min(500, Math.floor(leaseMs / 10))),
    );
    this.#watch.unref();
    this.#lateAfterMs = Math.floor(leaseMs / 3) + Math.min(500, Math.floor(leaseMs / 20));
    // A new connection after Redis was lost (it may have lost its data too): every turn
    // this instance runs puts its lease back at once.
    redis.command.on('ready', () => {
      for (const { turn } of this.#owned.values()) turn.reassert();
      this.#markRunning([...this.#owned.keys()]);
    });
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
    this.#late.delete(sessionId);
  }

  async claim(
    sessionId: string,
    turnId: string,
    requests: OwnerRequests,
    mayBeRunning?: () => Promise<boolean>,
  ): Promise<TurnLease | 'busy'> {
    const keys = sessionKeys(this.#prefix, sessionId);
    const { instanceId, leaseMs } = this.#turnOptions;
    const generation = `${instanceId}:${turnId}`;
    const writer = { instanceId, generation, turnId };
    const options: ClaimOptions = { leaseMs, graceMs: leaseMs };
    let claimed = await claimTurn(this.redis.command, keys, writer, options);
    // Redis lost its data a moment ago: an owner may be about to put its turn back. Only
    // the history saying no turn can be running lets the claim go on now.
    if ('uncertain' in claimed) {
      if (!mayBeRunning || (await mayBeRunning())) return 'busy';
      claimed = await claimTurn(this.redis.command, keys, writer, { ...options, force: true });
    }
    if ('uncertain' in claimed || claimed.busy) return 'busy';
    const { lastId, stopped, unended } = claimed;
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
      stopped,
      unended,
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

  async passDecision(sessionId: string, decision: TurnDecision): Promise<void> {
    const keys = sessionKeys(this.#prefix, sessionId);
    const text = JSON.stringify(decision);
    // The first decision wins, as on one instance.
    await this.redis.command.hsetnx(keys.decisions, decisionKey(decision), text);
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
   * Whether the session's turn lost its owner: at two looks `apartMs` apart (half a lease
   * by default; a renewal comes every third of one), its lease was gone each time with
   * positive evidence (ownerState), not merely missing after Redis lost its data.
   */
  async ownerGone(sessionId: string, apartMs = this.#turnOptions.leaseMs / 2): Promise<boolean> {
    const keys = sessionKeys(this.#prefix, sessionId);
    const graceMs = this.#turnOptions.leaseMs;
    if ((await ownerState(this.redis.command, keys, graceMs)).state !== 'gone') return false;
    await new Promise((resolve) => setTimeout(resolve, apartMs));
    return (await ownerState(this.redis.command, keys, graceMs)).state === 'gone';
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

  async forget(sessionIds: readonly string[]): Promise<void> {
    if (!sessionIds.length) return;
    // Each session's keys share a hash slot ({id}), not the sessions: one DEL per session.
    await Promise.all(
      sessionIds.map((id) => this.redis.command.del(...Object.values(sessionKeys(this.#prefix, id)))),
    );
    await this.redis.command.zrem(runningTurnsKey(this.#prefix), ...sessionIds);
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
    let request: { sessionId?: string; turnId?: string; decision?: TurnDecision };
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
   * Turns other instances run, on sessions this one has tabs on: an owner late to renew
   * is said to the tabs (and that it is back, if it comes back); an owner whose lease
   * expired (positive evidence: ownerState) is gone, and the hub ends its turn.
   */
  async #watchOwners(): Promise<void> {
    this.#markRunning([...this.#owned.keys()]);
    const running = [...this.#follower.remoteTurns()].filter(([sessionId]) => !this.#owned.has(sessionId));
    if (!running.length) return;
    const { leaseMs } = this.#turnOptions;
    let states;
    try {
      states = await Promise.all(
        running.map(([sessionId]) =>
          ownerState(this.redis.command, sessionKeys(this.#prefix, sessionId), leaseMs),
        ),
      );
    } catch {
      return; // Redis unreachable: nobody can be presumed dead now.
    }
    running.forEach(([sessionId, turnId], i) => {
      const handlers = this.#following.get(sessionId)?.handlers;
      const owner = states[i]!;
      if (!handlers || owner.state === 'uncertain') return;
      if (owner.state === 'gone') {
        this.#late.delete(sessionId);
        return handlers.ownerGone(turnId);
      }
      const late = owner.leftMs > 0 && leaseMs - owner.leftMs > this.#lateAfterMs;
      const told = this.#late.get(sessionId) === turnId;
      if (late && !told) {
        this.#late.set(sessionId, turnId);
        handlers.ownerLate(turnId);
      } else if (!late && told) {
        this.#late.delete(sessionId);
        handlers.ownerBack(turnId);
      }
    });
  }
}
