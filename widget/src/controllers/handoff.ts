/**
 * A person instead of the model (PROTOCOL.md section 8), as the visitor has it: whether the
 * site offers one (`ready.handoffOffered`), and asking for one. Where the conversation
 * stands is the reducer's (`view.handoff`, absent while the model answers); this keeps only
 * what the view does not: the offer, and that the model answers again after a person was
 * asked for, said until the visitor writes again. A controller in the toolbar's way: state, and
 * what it renders; its host renders on every frame. No lifecycle of its own.
 *
 * What it renders is a file of its own (components/handoff/handoff-view.ts), loaded once a
 * person is offered or the conversation has one: most sites never offer one.
 */
import { nothing } from 'lit';
import { Limits, type ChatView, type ClientFrame, type ServerFrame } from '@aalis/protocol/client';
import type { Strings } from '../i18n/strings.js';
import { LazyView, type ViewHost } from '../shared/lazy-view.js';

export const handoffView = new LazyView(() =>
  import('../components/handoff/handoff-view.js').then((file) => file.handoffView),
);

/** The chat: its view, and where the button and the line render. */
export interface HandoffHost extends ViewHost {
  readonly view: ChatView;
}

export class HandoffRequest {
  /** The site offers a person (the last `ready`). */
  offered = false;
  /** Back with the model after a handoff: the line says so until the visitor writes again. */
  back = false;
  /** The view had a handoff before the frame now received. */
  #had = false;

  /** @param pressed After the button: whether its request went. */
  constructor(
    private readonly host: HandoffHost,
    private readonly send: (frame: ClientFrame) => boolean,
    private readonly pressed: (sent: boolean) => void,
  ) {}

  /** The button shows: a person is offered, and none is asked for nor answering. */
  get open(): boolean {
    return this.offered && !this.host.view.handoff;
  }

  /** Asks for a person; false when none is offered, one is asked for already, or it cannot be sent now. */
  request(reason?: string): boolean {
    if (!this.open) return false;
    const text = reason?.trim().slice(0, Limits.handoffReason);
    return this.send({ type: 'handoff', ...(text ? { reason: text } : {}) });
  }

  /** The toolbar's button while a person may be asked for. */
  button(strings: Strings): unknown {
    return this.open ? (handoffView.in(this.host)?.button(strings, this.#press) ?? nothing) : nothing;
  }

  /** The line over the composer, wherever a person is offered or the conversation has a handoff. */
  line(strings: Strings): unknown {
    const { handoff } = this.host.view;
    return this.offered || handoff
      ? (handoffView.in(this.host)?.line(strings, handoff, this.back) ?? nothing)
      : nothing;
  }

  readonly #press = () => this.pressed(this.request());

  /** Every frame the server sends, once the view has it. */
  receive(frame: ServerFrame): void {
    const { handoff } = this.host.view;
    if (frame.type === 'ready') this.offered = !!frame.handoffOffered;
    if (frame.type === 'handoff') this.back = (this.#had || this.back) && !handoff;
    else if (frame.type === 'ready' || frame.type === 'user_message' || frame.type === 'session_deleted')
      this.back = false;
    this.#had = !!handoff;
  }
}
