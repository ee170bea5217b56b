/**
 * The sessions this instance holds in memory: one while a connection is on it, a turn
 * runs in it, or a hello or a send is between its first await and its end; forgotten
 * (and no longer followed) as soon as none of those is left. History lives in the store.
 */
import { randomBytes } from 'node:crypto';
import { emptyView, type ChatView, type ToolApp } from '@aalis/protocol';
import type { SessionCoordination } from './coordination.js';
import type { Peer } from './hub-options.js';
import type { RunningTurn } from './running-turn.js';

export interface Session {
  id: string;
  /** The signed visitor it belongs to; null for a session anyone holding its id may open. */
  owner: string | null;
  peers: Set<Peer>;
  /** The stream buffer: the running turn as the reducer sees it (history lives in the store). */
  view: ChatView;
  /** The turn this instance runs. */
  turn?: RunningTurn;
  /** Counts frames that change the history (`user_message`, `message`): a hello's read retries when it moved. */
  epoch: number;
  /** Hellos and sends between their first await and their end: the session stays in memory meanwhile. */
  pending: number;
  /** A send of this instance is claiming the turn: a second one meanwhile is `busy`. */
  claiming: boolean;
  /**
   * Set while a turn's end is being finished (its lease given up) after its tabs got its
   * final message: a send that comes meanwhile waits for it rather than being `busy`.
   */
  ending?: Promise<void>;
  /** Set once the coordination delivers the session's frames to this instance. */
  followed?: Promise<void>;
  /**
   * Its owner deleted it: kept in memory (with its owner) only until its tabs leave, so
   * that no turn starts in it and no hello finds it.
   */
  deleted?: boolean;
  /** MCP Apps of its tool calls found in the history, by call id: an app's later calls are not read again. */
  apps?: Map<string, ToolApp>;
}

/** 128 random bits: a session id is the only key to a conversation, so it must not be guessable. */
export const newSessionId = (): string => randomBytes(16).toString('base64url');

export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();

  constructor(private readonly coordination: SessionCoordination) {}

  get(sessionId: string): Session | undefined {
    return this.#sessions.get(sessionId);
  }

  /** The session in memory, made (with its owner, for a new one) when it is not there. */
  open(sessionId: string, owner: string | null = null): Session {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = {
        id: sessionId,
        owner,
        peers: new Set(),
        view: { ...emptyView, sessionId },
        epoch: 0,
        pending: 0,
        claiming: false,
      };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /** Sessions held in memory now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Sessions with a turn this instance runs now. */
  get runningTurns(): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.turn) count++;
    return count;
  }

  /** The turns this instance runs now. */
  turns(): RunningTurn[] {
    return [...this.#sessions.values()].flatMap((session) => (session.turn ? [session.turn] : []));
  }

  /** The turn another instance runs on the session, as the session's log says. */
  remoteTurn(session: Session): string | undefined {
    return session.turn ? undefined : this.coordination.remoteTurn(session.id);
  }

  /** A turn runs in the session, or is being claimed, here or on another instance. */
  answering(session: Session): boolean {
    return Boolean(session.turn || session.claiming || this.remoteTurn(session));
  }

  /** Keeps the session in memory while `work` runs, and forgets it after when nothing else holds it. */
  async holding<T>(session: Session, work: () => Promise<T>): Promise<T> {
    session.pending++;
    try {
      return await work();
    } finally {
      session.pending--;
      this.forgetIfIdle(session);
    }
  }

  /** The peer's connection ended or moved to another session. */
  leave(peer: Peer, sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    session.peers.delete(peer);
    this.forgetIfIdle(session);
  }

  forgetIfIdle(session: Session): void {
    if (session.peers.size || session.turn || session.pending) return;
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    this.coordination.unfollow(session.id);
  }
}
