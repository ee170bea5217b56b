/**
 * The visitor's Stop, kept until the turn it stops has ended (PROTOCOL.md, section 2c:
 * "Stop is recorded"). An `abort` can be lost on the way: no socket is open when Stop is
 * pressed, or the instance running the turn dies with it unread. The widget then
 * reconnects, often to another instance behind the load balancer, which answers `ready`
 * and, the turn still running, `stream_resume`: the Stop goes again there, after every
 * such reconnect, until the turn ends (its `message`, or an `error` of the session) or
 * another turn begins. A controller in the composer's way: state, and its host asked to
 * render; no lifecycle of its own.
 *
 * The turn is known by its question, the last message of the history while it runs: the
 * Stop is pending while the view (the protocol reducer's) has a turn running and that
 * question ends its history. A `ready` whose history ends with anything else (the answer,
 * stored meanwhile; a newer question, asked from another tab; another conversation), or the
 * turn's `message`, means the stopped turn is over, and a turn resumed after it is not the
 * one the visitor stopped.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ChatView, ClientFrame, ServerFrame } from '@aalis/protocol/client';

export class StopRequest {
  /** The id of the stopped turn's question. */
  #question: string | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly view: () => ChatView,
    private readonly send: (frame: ClientFrame) => boolean,
  ) {}

  /** The stopped turn still runs: the stop button says so. */
  get pending(): boolean {
    const { turn, messages } = this.view();
    return turn !== null && this.#question !== undefined && messages.at(-1)?.id === this.#question;
  }

  /** Stop pressed: sent now when a socket is open, and kept for the running turn either way. */
  press(): void {
    this.send({ type: 'abort' });
    const { turn, messages } = this.view();
    this.#question = turn ? messages.at(-1)?.id : undefined;
    this.host.requestUpdate();
  }

  /** Every frame the server sends, once the view has it. */
  receive(frame: ServerFrame): void {
    // The stopped turn runs on: a reconnect's `ready` kept the Stop (it ended with the
    // question), or an instance said silent is back. Said again even when the first one
    // went out: its instance may have died with it unread, and a second Stop is harmless.
    if (frame.type === 'stream_resume' && this.pending) this.send({ type: 'abort' });
  }
}
