/**
 * How the instances that serve the same sessions work together (behind a load balancer,
 * any tab on any instance): who runs a session's turn, the frames of turns other
 * instances run, and the requests (Stop, approval decisions) that must reach the instance
 * that runs one. Two implementations, picked when the app is composed: LocalCoordination
 * (local-coordination.ts) when this instance is the only one, and the Redis one
 * (cluster/redis-cluster.ts) when several share the sessions. The hub calls it the same
 * way either way, so that what differs between one instance and many lives here and not
 * in checks through the hub.
 *
 * The rule every instance follows: frames it produces itself it delivers to its own
 * connections at once, and publishes; frames of other instances reach its connections
 * through `follow`, in the order of the session's shared log. So every tab of a session,
 * on whichever instance, sees the same frames in the same order.
 */
import type { ElicitationAnswerFrame, ServerFrame, StreamResumeFrame } from '@aalis/protocol';

export interface SessionCoordination {
  /** Whether other instances serve the same sessions: a tab can go on with its session on another. */
  readonly shared: boolean;
  /**
   * Starts delivering the session's frames published by other instances: the running
   * turn's snapshot (a `stream_resume`) first, when one runs, then every frame after it.
   * Resolves once those written so far were delivered (`remoteTurn` then names a turn
   * another instance runs). Never rejects: with Redis unreachable, the session is read
   * from its resume point once Redis is back.
   * Calls for a session already followed only wait for the first to be ready.
   */
  follow(sessionId: string, handlers: FollowHandlers): Promise<void>;
  /** No connection of this instance is on the session any more. */
  unfollow(sessionId: string): void;
  /**
   * Claims the session's next turn for this instance, after every frame published before
   * was delivered to this instance's connections (so the new turn's frames come after
   * them everywhere). 'busy' when another instance runs one. Throws when the shared state
   * cannot be reached: then no turn may start.
   *
   * A takeover needs positive evidence that no owner is left: right after the shared
   * state lost its data, a session is taken only when `mayBeRunning` (the history: is its
   * last message a question without an answer?) says no turn can be running; else 'busy'
   * until an owner alive somewhere has had a lease's time to put its turn back.
   */
  claim(
    sessionId: string,
    turnId: string,
    requests: OwnerRequests,
    mayBeRunning?: () => Promise<boolean>,
  ): Promise<TurnLease | 'busy'>;
  /**
   * Asks whichever instance runs the session's turn `turnId` to stop it, and records the
   * Stop where every instance sees it: if that instance dies before it acts, the turn is
   * still ended `aborted` (TurnLease `stopRecorded`). Also said by the owner itself for a
   * Stop it got from its own tab, for the same reason.
   */
  requestAbort(sessionId: string, turnId: string): Promise<void>;
  /**
   * Passes a user's approval decision, or answer to an elicitation, to whichever instance
   * runs the session's turn. The first for a call (or an elicitation) wins.
   */
  passDecision(sessionId: string, decision: TurnDecision): Promise<void>;
  /**
   * Makes a new session (no message stored yet) known to every instance for a while, with
   * its owner, so that a second tab that lands elsewhere joins it instead of starting
   * another. Expires: a session nobody wrote to is forgotten, as on one instance.
   */
  announce(sessionId: string, owner: string | null): Promise<void>;
  /** The owner of a session announced and not stored yet (null: none); undefined when unknown. */
  announcedOwner(sessionId: string): Promise<string | null | undefined>;
  /**
   * The id of the turn another instance runs on a session this one follows, as the
   * session's log says; undefined when none does (or this instance runs it).
   */
  remoteTurn(sessionId: string): string | undefined;
  /**
   * Turns running now on every instance (the `maxConcurrentTurns` budget). `here` counts
   * this instance's, which is every turn when it is the only one; asked only when needed.
   */
  runningTurns(here: () => number): number | Promise<number>;
  /** Whether some instance holds the session's turn now (a start's recovery leaves those alone). */
  isRunning(sessionId: string): Promise<boolean>;
  /**
   * Runs `sweep` now and then, while instances may die mid-turn with no tab left to
   * notice (their turns stay marked running in the history); never for one instance,
   * whose start recovers its own. `sweep` gets the check that a session's turn lost its
   * owner. Returns what stops the sweeps.
   */
  scheduleOrphanSweeps(sweep: OrphanSweep): () => void;
  /**
   * A frame of the session outside any turn (a visitor's feedback), for the tabs other
   * instances hold: delivered once to each, as they follow the session. Best effort: a tab
   * that misses it has it in the history at its next reload.
   */
  share(sessionId: string, frameJson: string): void;
  /**
   * Drops everything kept of these sessions for other instances (their logs, snapshots,
   * decisions): the owner erased them, and no turn runs in them any more.
   */
  forget(sessionIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** A look for turns whose owner died; `ownerGone` says whether no instance holds a session's turn. */
export type OrphanSweep = (ownerGone: (sessionId: string) => Promise<boolean>) => Promise<void>;

export interface FollowHandlers {
  /** Frames other instances published, in order, each with the JSON it was published as. */
  frames(frames: PublishedFrame[]): void;
  /**
   * The turn `turnId` runs on no instance any more (its owner died: its lease expired and
   * was not renewed). The hub ends it once, for everyone.
   */
  ownerGone(turnId: string): void;
  /**
   * The owner of turn `turnId` has not renewed its lease for longer than a renewal: it may
   * be dying. The hub tells the tabs (`turn_status` `unresponsive`) while it waits.
   */
  ownerLate(turnId: string): void;
  /** The owner of turn `turnId`, late before, renews again. */
  ownerBack(turnId: string): void;
}

/** A frame as another instance published it: parsed, and its JSON, delivered as it came. */
export interface PublishedFrame {
  frame: ServerFrame;
  text: string;
}

/** Requests for the owner of a turn from other instances. */
export interface OwnerRequests {
  abort(): void;
  decide(decision: TurnDecision): void;
}

export interface ApprovalDecision {
  callId: string;
  decision: 'approve' | 'deny';
  remember?: 'session' | undefined;
}

/** A visitor's answer to an MCP server's request for input, checked against its form where it arrived. */
export type ElicitationAnswer = Omit<ElicitationAnswerFrame, 'type'>;

/** What a visitor decides for the running turn, from a tab on any instance. */
export type TurnDecision = ApprovalDecision | ElicitationAnswer;

/** The one key a decision is known by: the first for it wins, on every instance. */
export const decisionKey = (decision: TurnDecision): string =>
  'callId' in decision ? decision.callId : `elicitation:${decision.elicitationId}`;

/** A turn this instance runs, under its lease. */
export interface TurnLease {
  /**
   * Publishes a frame this instance delivered (`frameJson` makes its JSON, argument text
   * included, once for every peer; a lease with no one to publish to never asks), for
   * other instances' connections. Frames are written in batches (one per tick); `resume`
   * gives the snapshot a new tab would need after it, taken only when one is due. A frame
   * that cannot be written (the shared state is unreachable, or this instance lost the
   * turn) is logged, never thrown.
   */
  publish(frameJson: () => string, resume: () => StreamResumeFrame | null): void;
  /**
   * False once another instance took the turn over (this one was presumed dead): its
   * frames and its answer are refused from then on (fencing).
   */
  readonly owned: boolean;
  /**
   * The turn a Stop was recorded for when this lease was claimed (a Stop whose turn's
   * owner died before it could act on it): the turn that ends it on the owner's behalf
   * ends it `aborted`.
   */
  readonly stopRecorded?: string | undefined;
  /**
   * The session's turn before this one, when it never ended (its owner died, and no
   * instance ended it yet): the new turn ends it first, so that its tabs get its end.
   */
  readonly unended?: string | undefined;
  /** Publishes what is left and gives the turn up; the session's log expires later. */
  release(): Promise<void>;
}

/** The names these had when only the Redis implementation existed (server/src/index.ts exports them). */
export type SessionCluster = SessionCoordination;
export type ClusterTurn = TurnLease;
