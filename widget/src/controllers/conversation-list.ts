/**
 * The visitor's conversations, as a controller without lifecycle of its own: shown in place of the
 * transcript for a visitor the server knows (`ready.conversations`), asked for with
 * `list_sessions`, renamed and deleted (asked twice) from the list. A conversation
 * deleted here is left once the server's list no longer has it, not before.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ClientFrame, ReadyFrame, SessionSummary, SessionsFrame } from '@aalis/protocol/client';
import type { ConversationHandlers } from '../components/conversations/conversations-view.js';

export interface ConversationListState {
  /** Null until the server's list arrives. */
  sessions: SessionSummary[] | null;
  renaming?: string | undefined;
  confirming?: string;
}

/** What the list asks of the rest of the element. */
export interface ConversationListCallbacks {
  /** The conversation shown now. */
  current(): string | null;
  /** A conversation was picked from the list (maybe the one shown). */
  open(sessionId: string): void;
  /** Forgets this conversation for a new, empty one. */
  fresh(): void;
  /** Moves the focus to `selector` (the text box by default) once rendered. */
  focus(selector?: string): void;
}

export class ConversationList {
  /** The server knows this visitor: it has a conversation list. */
  available = false;
  /** The list, shown in place of the transcript; null while it is not. */
  state: ConversationListState | null = null;
  /** A conversation this tab asked to delete, until the server's list answers. */
  #deleting: string | undefined;

  readonly #host: ReactiveControllerHost;
  readonly #send: (frame: ClientFrame) => boolean;
  readonly #callbacks: ConversationListCallbacks;

  constructor(
    host: ReactiveControllerHost,
    send: (frame: ClientFrame) => boolean,
    callbacks: ConversationListCallbacks,
  ) {
    this.#host = host;
    this.#send = send;
    this.#callbacks = callbacks;
  }

  ready(frame: ReadyFrame): void {
    // The list asked for while offline is asked for now.
    if (this.state?.sessions === null) this.#send({ type: 'list_sessions' });
    const available = frame.conversations === true;
    if (available === this.available) return;
    this.available = available;
    this.#host.requestUpdate();
  }

  /** The server's list: true when the conversation shown was deleted from here and must be left. */
  received(frame: SessionsFrame): boolean {
    if (this.state) this.#set({ sessions: frame.sessions });
    const deleted = this.#deleting;
    this.#deleting = undefined;
    return deleted === this.#callbacks.current() && !frame.sessions.some((s) => s.id === deleted);
  }

  /** The open conversation was deleted (by its owner, in another tab or this one). */
  deleted(sessionId: string): void {
    if (this.#deleting === sessionId) this.#deleting = undefined;
  }

  readonly handlers: ConversationHandlers & { toggle(): void } = {
    toggle: () => {
      if (this.state) return this.#set(null);
      this.#set({ sessions: null });
      // Offline: asked again with the next ready.
      this.#send({ type: 'list_sessions' });
    },
    back: () => {
      this.#set(null);
      this.#callbacks.focus();
    },
    fresh: () => {
      this.#set(null);
      this.#callbacks.fresh();
      this.#callbacks.focus();
    },
    open: (id: string) => {
      this.#set(null);
      this.#callbacks.open(id);
    },
    rename: (id: string | undefined) => {
      if (this.state) this.#set({ ...this.state, renaming: id });
      this.#callbacks.focus(id ? '.rename-form input' : '.open-conversation');
    },
    saveName: (id: string, title: string) => {
      this.#send({ type: 'rename_session', sessionId: id, title });
    },
    remove: (id: string) => {
      const list = this.state;
      if (!list) return;
      // Asked twice: the first press turns the button into "Delete?".
      if (list.confirming !== id) return this.#set({ ...list, confirming: id });
      if (this.#send({ type: 'delete_session', sessionId: id })) this.#deleting = id;
      this.#callbacks.focus('.conversations-head button');
    },
  };

  #set(state: ConversationListState | null): void {
    this.state = state;
    this.#host.requestUpdate();
  }
}
