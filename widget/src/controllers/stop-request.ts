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
 * The turn is known by its question, the last message of the history while it runs: a
 * `ready` whose history ends with anything else (the answer, stored meanwhile; a newer
 * question, asked from another tab; another conversation) means the stopped turn is over,
 * and a turn resumed after it is not the one the visitor stopped.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ChatView, ClientFrame, ServerFrame } from '@aalis/protocol/client';

export class StopRequest {
  /** The id of the stopped turn's question, while that turn may still run. */
  #question: string | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly send: (frame: ClientFrame) => boolean,
  ) {}

  /** A Stop waits for its turn to end: the stop button says so. */
  get pending(): boolean {
    return this.#question !== undefined;
  }

  /** Stop pressed: sent now when a socket is open, and kept for the running turn either way. */
  press(view: ChatView): void {
    this.send({ type: 'abort' });
    const question = view.turn ? view.messages.at(-1)?.id : undefined;
    if (question === undefined || question === this.#question) return;
    this.#question = question;
    this.host.requestUpdate();
  }

  /** Every frame the server sends. */
  receive(frame: ServerFrame): void {
    if (this.#question === undefined) return;
    // The stopped turn runs on: a reconnect's `ready` kept the Stop (it ended with the
    // question), or an instance said silent is back. Said again even when the first one
    // went out: its instance may have died with it unread, and a second Stop is harmless.
    if (frame.type === 'stream_resume') this.send({ type: 'abort' });
    else if (
      frame.type === 'ready'
        ? frame.messages.at(-1)?.id !== this.#question
        : frame.type === 'message' ||
          frame.type === 'user_message' ||
          (frame.type === 'error' && frame.sessionId !== undefined)
    ) {
      this.#question = undefined;
      this.host.requestUpdate();
    }
  }
}
