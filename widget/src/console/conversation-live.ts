/**
 * The open conversation, live (PROTOCOL.md section 8): the server's Server-Sent Events of
 * its frames (`GET /conversations/:id/events`, `ready` first), folded by the protocol's own
 * reducer into the view the chat keeps, so the console and the visitor's tabs read the
 * same frames the same way: the messages as they come (a visitor's, to the person or not;
 * the model's answers; a person's replies), the answer being written, and the handoff.
 *
 * One stream at a time: opening another conversation, closing it, logging out or leaving
 * the page closes it. A stream cut midway is EventSource's to reconnect (a fresh `ready`
 * then replaces the view); one the server refuses (the login ended, the conversation
 * erased) stays stopped until the owner asks again.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { emptyView, reduce, type ChatMessage, type ChatView, type ViewFrame } from '@aalis/protocol/client';
import type { ConsoleApi, HandoffState } from './console-api.js';

/** `connecting` until the first `ready`; `reconnecting` while EventSource tries again; `stopped` once refused. */
export type LiveState = 'off' | 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface LiveCallbacks {
  /** The conversation's handoff is known or changed: the list's row says it too. */
  handoffChanged(sessionId: string, handoff: HandoffState | undefined): void;
  /** The server refused the stream: the login may have ended. */
  refused(): void;
}

export class ConversationLive implements ReactiveController {
  /** The conversation watched; undefined while none is. */
  sessionId: string | undefined;
  state: LiveState = 'off';
  /** The server's view of the conversation, once its `ready` came. */
  view: ChatView = emptyView;

  #source: EventSource | undefined;
  /** A person's replies as their POST answered them: shown even while the stream is down. */
  #sent: ChatMessage[] = [];
  readonly #host: ReactiveControllerHost;
  readonly #api: ConsoleApi;
  readonly #callbacks: LiveCallbacks;

  constructor(host: ReactiveControllerHost, api: ConsoleApi, callbacks: LiveCallbacks) {
    this.#host = host;
    this.#api = api;
    this.#callbacks = callbacks;
    host.addController(this);
  }

  /** True once the server's `ready` came: `view.handoff` is the conversation's. */
  get ready(): boolean {
    return this.view.sessionId !== null;
  }

  watch(sessionId: string): void {
    this.stop();
    this.sessionId = sessionId;
    this.#connect('connecting');
  }

  stop(): void {
    this.#close();
    Object.assign(this, { sessionId: undefined, state: 'off', view: emptyView });
    this.#sent = [];
    this.#host.requestUpdate();
  }

  /** The owner asks again after the server refused. */
  reconnect(): void {
    if (this.sessionId && this.state === 'stopped') this.#connect('connecting');
  }

  /** A person's reply the server accepted, for the conversation it was written in. */
  sent(sessionId: string, message: ChatMessage): void {
    if (sessionId !== this.sessionId) return;
    this.#sent.push(message);
    this.#host.requestUpdate();
  }

  /** The conversation as read whole (`archived`), then what came live since, each message once. */
  messages(archived: readonly ChatMessage[]): readonly ChatMessage[] {
    const seen = new Set(archived.map((message) => message.id));
    const added = [...this.view.messages, ...this.#sent].filter((message) => {
      if (seen.has(message.id)) return false;
      seen.add(message.id);
      return true;
    });
    return added.length ? [...archived, ...added] : archived;
  }

  hostConnected(): void {
    // Back on the page (moved in the document): the same conversation again.
    if (this.sessionId && !this.#source && this.state !== 'stopped') this.#connect('connecting');
  }

  hostDisconnected(): void {
    this.#close();
  }

  #connect(state: LiveState): void {
    this.#close();
    const sessionId = this.sessionId!;
    const source = new EventSource(this.#api.eventsUrl(sessionId));
    this.#source = source;
    this.state = state;
    source.onmessage = (event: MessageEvent<string>) => this.#frame(sessionId, event.data);
    source.onerror = () => {
      if (source !== this.#source) return;
      // CLOSED: refused (not a 200 event stream), EventSource gives up; else it tries again.
      if (source.readyState === EventSource.CLOSED) {
        this.#close();
        this.state = 'stopped';
        this.#callbacks.refused();
      } else this.state = 'reconnecting';
      this.#host.requestUpdate();
    };
    this.#host.requestUpdate();
  }

  #frame(sessionId: string, data: string): void {
    if (sessionId !== this.sessionId) return;
    let frame: ViewFrame;
    try {
      // The console's own server sends these: parsed, not validated as the chat does
      // with a server it may not know. One it cannot read is left out, not fatal.
      frame = JSON.parse(data) as ViewFrame;
      if (typeof frame?.type !== 'string') return;
      const before = this.view.handoff;
      this.view = reduce(this.view, frame, Date.now());
      if (frame.type === 'ready') this.state = 'live';
      const after = this.view.handoff;
      if (frame.type === 'ready' || before?.state !== after?.state)
        this.#callbacks.handoffChanged(sessionId, after?.state);
    } catch {
      return;
    }
    this.#host.requestUpdate();
  }

  #close(): void {
    this.#source?.close();
    this.#source = undefined;
  }
}
