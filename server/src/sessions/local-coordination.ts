/**
 * Coordination when this instance is the only one (coordination.ts): every session's
 * frames are made here, so there is nothing to follow, announce or share; a turn is
 * claimed by the session in memory alone (the hub refuses a second send while one runs),
 * and no turn can lose its owner while the owner lives on.
 */
import type {
  TurnDecision,
  FollowHandlers,
  OrphanSweep,
  OwnerRequests,
  SessionCoordination,
  TurnLease,
} from './coordination.js';

/** The lease of a turn nobody else could run: nothing to publish, never taken over. */
const localLease: TurnLease = {
  owned: true,
  publish: () => {},
  release: () => Promise.resolve(),
};

export class LocalCoordination implements SessionCoordination {
  readonly shared = false;

  follow(_sessionId: string, _handlers: FollowHandlers): Promise<void> {
    return Promise.resolve();
  }

  unfollow(_sessionId: string): void {}

  claim(_sessionId: string, _turnId: string, _requests: OwnerRequests): Promise<TurnLease> {
    return Promise.resolve(localLease);
  }

  // No other instance runs a turn (remoteTurn is always undefined), so none is asked.
  requestAbort(_sessionId: string, _turnId: string): Promise<void> {
    return Promise.resolve();
  }

  passDecision(_sessionId: string, _decision: TurnDecision): Promise<void> {
    return Promise.resolve();
  }

  announce(_sessionId: string, _owner: string | null): Promise<void> {
    return Promise.resolve();
  }

  announcedOwner(_sessionId: string): Promise<string | null | undefined> {
    return Promise.resolve(undefined);
  }

  remoteTurn(_sessionId: string): string | undefined {
    return undefined;
  }

  runningTurns(here: () => number): number {
    return here();
  }

  isRunning(_sessionId: string): Promise<boolean> {
    return Promise.resolve(false);
  }

  scheduleOrphanSweeps(_sweep: OrphanSweep): () => void {
    return () => {};
  }

  share(_sessionId: string, _frameJson: string): void {}

  /** One instance keeps nothing of a session outside its memory and the history. */
  forget(_sessionIds: readonly string[]): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
