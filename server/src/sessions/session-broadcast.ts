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
  /**
   * The peers whose clients said (`hello.features`) they read a person's messages (the
   * `operator` role, PROTOCOL.md section 8): an older client would refuse a frame that
   * holds one, its `ready` included, so it is sent none.
   */
  readonly operatorAware = new WeakSet<Peer>();

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
    const json = this.take(session, frame);
    // A lease with no one to publish to (alone) never asks for the JSON with the argument text.
    session.turn?.lease.publish(
      () => json.full,
      () => this.resume(session),
    );
  }

  /**
   * A frame outside any turn (feedback, a deletion), for this instance's peers of the
   * session and, through the coordination, every other instance's.
   */
  share(sessionId: string, frame: ServerFrame, session = this.registry.get(sessionId)): void {
    const json = new FrameJson(frame);
    if (session) this.take(session, frame, json);
    this.coordination.share(sessionId, json.full);
  }

  /**
   * Reduces the frame into the session's buffer and delivers it to its peers; returns its
   * JSON, made at most once in each form (`json`: as another instance published it).
   */
  take(session: Session, frame: ServerFrame, json = new FrameJson(frame)): FrameJson {
    if (frame.type === 'user_message' || frame.type === 'message') session.epoch++;
    // Deleted, here or on another instance: its tabs leave it, and nothing starts in it. A
    // turn it runs here stops (the owner erased it mid-answer: the answer has no home).
    if (frame.type === 'session_deleted') {
      session.deleted = true;
      session.turn?.controller.abort();
    }
    // A person answers now (a handoff, sessions/handoff-desk.ts): the model stays silent.
    if (frame.type === 'handoff' && frame.state === 'active') session.turn?.controller.abort();
    const view = reduce(session.view, frame, this.now());
    // History is the store's job: the buffer keeps only the running turn, so it stays small.
    session.view = view.messages.length ? { ...view, messages: [] } : view;
    const operator = frame.type === 'message' && frame.message.role === 'operator';
    for (const peer of session.peers) {
      if (operator && !this.operatorAware.has(peer)) continue;
      if (peer.argumentText) peer.deliver(frame, json.full);
      else peer.deliver(json.lean.frame, json.lean.text);
    }
    return json;
  }

  /** The running turn as a tab that joins now needs it (`stream_resume`); null when none runs. */
  resume(session: Session, serverTime = this.now()): StreamResumeFrame | null {
    return snapshot(session.view, serverTime);
  }

  /** One frame for one peer (its `ready`, a refusal, a page of history). */
  toPeer(peer: Peer, frame: ServerFrame): void {
    const shown = this.operatorAware.has(peer) ? frame : withoutOperatorMessages(frame);
    const sent = peer.argumentText ? shown : withoutArgumentText(shown);
    peer.deliver(sent, JSON.stringify(sent));
  }
}

/**
 * A frame's JSON, each form made when first asked for, once for every peer: whole (peers
 * that take argument text, other instances) and without a written call's argument text
 * (sockets). A frame that carries none has one JSON for both.
 */
export class FrameJson {
  #full: string | undefined;
  #lean: { frame: ServerFrame; text: string } | undefined;

  constructor(
    readonly frame: ServerFrame,
    full?: string,
  ) {
    this.#full = full;
  }

  get full(): string {
    return (this.#full ??= JSON.stringify(this.frame));
  }

  get lean(): { frame: ServerFrame; text: string } {
    if (!this.#lean) {
      const lean = withoutArgumentText(this.frame);
      this.#lean =
        lean === this.frame ? { frame: lean, text: this.full } : { frame: lean, text: JSON.stringify(lean) };
    }
    return this.#lean;
  }
}

/** A page of messages (`ready`, `history`) without a person's, for a client that cannot read them. */
function withoutOperatorMessages(frame: ServerFrame): ServerFrame {
  if (frame.type !== 'ready' && frame.type !== 'history') return frame;
  if (!frame.messages.some((message) => message.role === 'operator')) return frame;
  return { ...frame, messages: frame.messages.filter((message) => message.role !== 'operator') };
}
