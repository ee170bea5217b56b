/**
 * Reads the frames other instances publish, for every session this instance has
 * connections on: one blocking `XREAD` over all their streams on a connection of its own,
 * restarted (`CLIENT UNBLOCK`) when the set of sessions changes. Entries are handed over
 * per session, in stream order; entries this instance wrote itself are skipped (it
 * delivered them when it made them) but still move the session's position, so that a
 * claim can wait until everything before it was delivered (`caughtUp`).
 *
 * After Redis was unreachable, every session is read again from its resume point: frames
 * written meanwhile may be gone, and a `stream_resume` gives the connections the turn as
 * it stands.
 */
import type { ServerFrame, StreamResumeFrame } from '@aalis/protocol';
import type { PublishedFrame } from '../sessions/coordination.js';
import type { Redis } from 'ioredis';
import type { Logger } from '../util/log-error.js';
import { sessionKeys, sessionOfFramesKey } from './keys.js';
import type { ScriptedRedis } from './scripts.js';
import { compareStreamIds } from './stream-ids.js';

/** Frames of other instances, in order, each with the JSON it was published as. */
export type FramesHandler = (frames: PublishedFrame[]) => void;

export interface FollowedSession {
  frames: FramesHandler;
  /** Stream entries read, own ones included: a user message of this instance ends watching its turn. */
  position: string;
  /** The id of the turn another instance runs, as the log says (for the dead-owner watch). */
  remoteTurn: string | undefined;
  /** Position waits of claims: each resolves true once read up to its id, false when given up. */
  waiters: Array<{ id: string; resolve: (reached: boolean) => void }>;
  /**
   * This instance runs the session's turn: every entry written meanwhile is its own (the
   * lease fences everyone else), so the session is left out of the reads until the turn
   * ends. A read that woke for each of its own entries would cost the owner as much again.
   */
  paused: boolean;
}

/** Where a newly followed session starts: its running turn's snapshot, or the log's end. */
export interface ResumePoint {
  /** The entry reading starts after: the snapshot's, or the log's last. */
  position: string;
  /** The log's last entry now: reading up to it brings the session up to date. */
  end: string;
  /** The log's oldest entry still kept ('0-0' when there is none). */
  first: string;
  /** The running turn: its id, and its snapshot (a `stream_resume`) with its JSON. */
  turn?: { turnId: string; resume: PublishedFrame };
}

export class FrameFollower {
  readonly #sessions = new Map<string, FollowedSession>();
  #blockedClientId: number | undefined;
  #wake: (() => void) | undefined;
  #unblockScheduled = false;
  #resyncDue = false;
  #closed = false;
  readonly #done: Promise<void>;

  constructor(
    private readonly command: ScriptedRedis,
    private readonly blocking: Redis,
    private readonly options: { prefix: string; instanceId: string; logger: Logger; blockMs?: number },
  ) {
    this.#done = this.#loop();
  }

  /** Reads where a session's log stands (its running turn, or its end). */
  async resumePoint(sessionId: string): Promise<ResumePoint> {
    const keys = sessionKeys(this.options.prefix, sessionId);
    const [first, end, position, frame, turnId] = await this.command.aalisResumePoint(
      keys.snapshot,
      keys.frames,
    );
    if (!position || !frame || !turnId) return { position: end, end, first };
    const resume = { frame: JSON.parse(frame) as StreamResumeFrame, text: frame };
    return { position, end, first, turn: { turnId, resume } };
  }

  /** With `resync`, the session's resume point could not be read: it is, before the next read. */
  add(sessionId: string, point: ResumePoint, frames: FramesHandler, { resync = false } = {}): void {
    this.#sessions.set(sessionId, {
      frames,
      position: point.position,
      remoteTurn: point.turn?.turnId,
      waiters: [],
      paused: false,
    });
    if (resync) this.#resyncDue = true;
    this.#restartRead();
  }

  remove(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    this.#sessions.delete(sessionId);
    for (const waiter of session.waiters) waiter.resolve(true);
    this.#restartRead();
  }

  /** This instance claimed the session's turn: its own entries are not read back. */
  pause(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session || session.paused) return;
    session.paused = true;
    session.remoteTurn = undefined;
    this.#restartRead();
  }

  /**
   * The turn ended: reading goes on from where it stopped. Its own entries come back once
   * and are skipped; anything another instance wrote after them (a takeover) is delivered.
   */
  resume(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session?.paused) return;
    session.paused = false;
    this.#restartRead();
  }

  /** The sessions whose turn another instance runs, with its id. */
  /** The turn another instance runs on the session, as its log says. */
  remoteTurn(sessionId: string): string | undefined {
    return this.#sessions.get(sessionId)?.remoteTurn;
  }

  *remoteTurns(): Generator<[string, string]> {
    for (const [sessionId, session] of this.#sessions)
      if (session.remoteTurn) yield [sessionId, session.remoteTurn];
  }

  /**
   * Resolves true once the session's entries up to `id` were read and handed over; false
   * after `timeoutMs` (a read that is stuck: a claim must not hang, nor go on out of order).
   */
  caughtUp(sessionId: string, id: string, timeoutMs = 2_000): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (!session || compareStreamIds(session.position, id) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.options.logger.warn({ sessionId, id }, 'the shared log was not read up to a claim in time');
        resolve(false);
      }, timeoutMs);
      session.waiters.push({
        id,
        resolve: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
      });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    this.blocking.disconnect();
    await this.#done;
  }

  /** Ends the current blocking read, once per tick however many sessions came or went. */
  #restartRead(): void {
    this.#wake?.();
    if (this.#unblockScheduled || this.#blockedClientId === undefined) return;
    this.#unblockScheduled = true;
    setImmediate(() => {
      this.#unblockScheduled = false;
      if (this.#blockedClientId === undefined) return;
      this.command.client('UNBLOCK', this.#blockedClientId).catch(() => {});
    });
  }

  async #loop(): Promise<void> {
    const { prefix, logger, blockMs = 5_000 } = this.options;
    while (!this.#closed) {
      const reading = [...this.#sessions].filter(([, session]) => !session.paused);
      if (!reading.length) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
        continue;
      }
      try {
        if (this.#resyncDue) await this.#resync();
        const keys = reading.map(([id]) => sessionKeys(prefix, id).frames);
        const positions = reading.map(([, session]) => session.position);
        this.#blockedClientId ??= (await this.blocking.client('ID')) as number;
        const read = await this.blocking.xread(
          'COUNT',
          1000,
          'BLOCK',
          blockMs,
          'STREAMS',
          ...keys,
          ...positions,
        );
        for (const [key, entries] of read ?? []) this.#take(sessionOfFramesKey(prefix, key), entries);
      } catch (error) {
        if (this.#closed) break;
        // Lost Redis (or the connection): its id changes with the new connection, and
        // what was written meanwhile is read again from each session's resume point.
        this.#blockedClientId = undefined;
        if (!this.#resyncDue)
          logger.warn({ err: (error as Error).message }, 'reading the shared frames failed: retrying');
        this.#resyncDue = true;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  #take(sessionId: string, entries: Array<[string, string[]]>): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    const frames: PublishedFrame[] = [];
    for (const [id, fields] of entries) {
      session.position = id;
      // This instance's own entry: delivered when it was made, and the turn it belongs
      // to runs (or ran) here; only the position moves. Not even parsed.
      if (fieldOf(fields, 'o') === this.options.instanceId) {
        session.remoteTurn = undefined;
        continue;
      }
      const text = fieldOf(fields, 'f');
      if (text === undefined) continue;
      const frame = JSON.parse(text) as ServerFrame;
      if (frame.type === 'user_message') session.remoteTurn = frame.message.id;
      if (frame.type === 'message') session.remoteTurn = undefined;
      frames.push({ frame, text });
    }
    if (frames.length) session.frames(frames);
    session.waiters = session.waiters.filter((waiter) => {
      if (compareStreamIds(session.position, waiter.id) < 0) return true;
      waiter.resolve(true);
      return false;
    });
  }

  /**
   * After a failed read: each session reads on from where it was when the log still holds
   * every entry after that; otherwise (Redis lost them, or they were trimmed) from its
   * resume point, and a running turn's snapshot goes to its connections.
   */
  async #resync(): Promise<void> {
    for (const [sessionId, session] of this.#sessions) {
      // A session whose turn this instance runs is read on from where it was once the
      // turn ends: every entry meanwhile is its own.
      const point = session.paused ? undefined : await this.resumePoint(sessionId);
      const kept = !point || (point.first !== '0-0' && compareStreamIds(session.position, point.first) >= 0);
      if (point && !kept) {
        session.position = point.position;
        // No snapshot may only mean Redis lost it: a turn watched before is still
        // watched, and its owner (which puts its lease back) or its end says which.
        session.remoteTurn = point.turn?.turnId ?? session.remoteTurn;
        if (point.turn) session.frames([point.turn.resume]);
      }
      // A claim waiting meanwhile is not served out of order: it gives up.
      for (const waiter of session.waiters.splice(0)) waiter.resolve(false);
    }
    this.#resyncDue = false;
    this.options.logger.info(
      { sessions: this.#sessions.size },
      'shared frames read again from each resume point',
    );
  }
}

/** A field of a stream entry (`[name, value, name, value, ...]`). */
function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}
