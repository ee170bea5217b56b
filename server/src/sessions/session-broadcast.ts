/**
 * Frames to every peer of a session. Each frame passes here once per instance: it is
 * turned into JSON once for every peer, folded into the session's stream buffer by the
 * protocol reducer (the view a tab that joins mid-turn resumes from), and, when this
 * instance runs the session's turn, published under its lease for the other instances.
 * A tool call's argument text while it is written goes to the buffer, the other instances
 * and the peers that asked for it (the AG-UI endpoint); the others get the frame without it.
 */
import {
  reduce,
  snapshot,
  withoutArgumentText,
  type ServerFrame,
  type StreamResumeFrame,
} from '@aalis/protocol';
import type { SessionCoordination } from './coordination.js';
import type { Peer } from './hub-options.js';
import type { Session, SessionRegistry } from './session-registry.js';

export class SessionBroadcast {
  constructor(
    private readonly registry: SessionRegistry,
    private readonly coordination: SessionCoordination,
    private readonly now: () => number,
  ) {}

  /**
   * Every peer of the session gets the frame, and the session's buffer takes it in; the
   * turn's lease publishes it for the other instances' peers.
   */
  toSession(sessionId: string, frame: ServerFrame): void {
    const session = this.registry.get(sessionId);
    if (!session) return;
    const text = this.take(session, frame);
    session.turn?.lease.publish(text, () => this.resume(session));
  }

  /**
   * A frame outside any turn (feedback, a deletion), for this instance's peers of the
   * session and, through the coordination, every other instance's.
   */
  share(sessionId: string, frame: ServerFrame, session = this.registry.get(sessionId)): void {
    const text = JSON.stringify(frame);
    if (session) this.take(session, frame, text);
    this.coordination.share(sessionId, text);
  }

  /**
   * Reduces the frame into the session's buffer and delivers it to its peers; returns its
   * JSON: made here once for every peer, or as another instance published it.
   */
  take(session: Session, frame: ServerFrame, text = JSON.stringify(frame)): string {
    if (frame.type === 'user_message' || frame.type === 'message') session.epoch++;
    // Deleted, here or on another instance: its tabs leave it, and nothing starts in it.
    if (frame.type === 'session_deleted') session.deleted = true;
    const view = reduce(session.view, frame, this.now());
    // History is the store's job: the buffer keeps only the running turn, so it stays small.
    session.view = view.messages.length ? { ...view, messages: [] } : view;
    let lean: { frame: ServerFrame; text: string } | undefined;
    for (const peer of session.peers) {
      if (peer.argumentText) peer.deliver(frame, text);
      else {
        lean ??= leanOf(frame, text);
        peer.deliver(lean.frame, lean.text);
      }
    }
    return text;
  }

  /** The running turn as a tab that joins now needs it (`stream_resume`); null when none runs. */
  resume(session: Session, serverTime = this.now()): StreamResumeFrame | null {
    return snapshot(session.view, serverTime);
  }

  /** One frame for one peer (its `ready`, a refusal, a page of history). */
  toPeer(peer: Peer, frame: ServerFrame): void {
    const sent = peer.argumentText ? frame : withoutArgumentText(frame);
    peer.deliver(sent, JSON.stringify(sent));
  }
}

/** The frame without argument text, and its JSON: the same text when it had none. */
function leanOf(frame: ServerFrame, text: string): { frame: ServerFrame; text: string } {
  const lean = withoutArgumentText(frame);
  return lean === frame ? { frame, text } : { frame: lean, text: JSON.stringify(lean) };
}
