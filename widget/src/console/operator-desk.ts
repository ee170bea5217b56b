/**
 * The owner answering as a person (PROTOCOL.md section 8): the reply being written, the
 * name the visitor sees it from (remembered in this browser, "Support" until changed),
 * sending it, and giving the conversation back to the model. Any conversation can be
 * answered: a reply to one nobody asked a person for takes it over (`active`) all the same.
 *
 * What the server does next (the handoff `active`, or `off`; the reply in every tab) comes
 * back on the live view (conversation-live.ts); the reply also shows from the POST's
 * answer, so it is on the page even while the live view is down.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ChatMessage } from '@aalis/protocol/client';
import { LoggedOut, failureText, type ConsoleApi } from './console-api.js';

/** Where the name is remembered (the console's origin only). */
export const OPERATOR_NAME_KEY = 'aalis-console-operator';
/** The server's own default for a reply without a name. */
export const DEFAULT_OPERATOR_NAME = 'Support';
/** The server refuses longer names. */
export const MAX_OPERATOR_NAME = 80;

export interface OperatorDeskCallbacks {
  loggedOut(error: LoggedOut): void;
  /** The server took the reply: shown at once in the conversation it was written for. */
  sent(sessionId: string, message: ChatMessage): void;
}

export class OperatorDesk {
  /** The name the replies go out under. */
  name = storedName();
  /** The reply being written. */
  draft = '';
  /** A reply or a release on its way: another waits for it. */
  busy: 'sending' | 'releasing' | undefined;
  error = '';

  /** Counts the conversations opened: an answer for an earlier one says nothing here. */
  #generation = 0;
  readonly #host: ReactiveControllerHost;
  readonly #api: ConsoleApi;
  readonly #callbacks: OperatorDeskCallbacks;

  constructor(host: ReactiveControllerHost, api: ConsoleApi, callbacks: OperatorDeskCallbacks) {
    this.#host = host;
    this.#api = api;
    this.#callbacks = callbacks;
  }

  /** Another conversation opened: a reply written for the last one must not go to this one. */
  reset(): void {
    this.#generation++;
    Object.assign(this, { draft: '', busy: undefined, error: '' });
    this.#host.requestUpdate();
  }

  setDraft(text: string): void {
    this.draft = text;
  }

  setName(name: string): void {
    this.name = name.slice(0, MAX_OPERATOR_NAME);
    try {
      localStorage.setItem(OPERATOR_NAME_KEY, this.name);
    } catch {
      // Storage refused (a private window's quota): the name holds for this page only.
    }
    this.#host.requestUpdate();
  }

  /** Sends the draft; true once the server took it. */
  async send(sessionId: string): Promise<boolean> {
    if (this.busy) return false;
    const text = this.draft;
    if (!text.trim()) {
      this.#set({ error: 'Write a reply first.' });
      return false;
    }
    this.#set({ busy: 'sending', error: '' });
    const generation = this.#generation;
    try {
      const message = await this.#api.reply(sessionId, text, this.name.trim() || undefined);
      if (generation !== this.#generation) return true;
      // The draft goes only if it is still the one sent (typing on while it went keeps the rest).
      this.#set({ busy: undefined, draft: this.draft === text ? '' : this.draft });
      this.#callbacks.sent(sessionId, message);
      return true;
    } catch (error) {
      this.#failed(error, generation);
      return false;
    }
  }

  /** Gives the conversation back to the model; true once done. */
  async release(sessionId: string): Promise<boolean> {
    if (this.busy) return false;
    this.#set({ busy: 'releasing', error: '' });
    const generation = this.#generation;
    try {
      await this.#api.release(sessionId);
      if (generation === this.#generation) this.#set({ busy: undefined });
      return true;
    } catch (error) {
      this.#failed(error, generation);
      return false;
    }
  }

  #failed(error: unknown, generation: number): void {
    if (error instanceof LoggedOut) return this.#callbacks.loggedOut(error);
    if (generation !== this.#generation) return;
    this.#set({ busy: undefined, error: failureText(error) });
  }

  #set(values: Partial<Pick<OperatorDesk, 'busy' | 'error' | 'draft'>>): void {
    Object.assign(this, values);
    this.#host.requestUpdate();
  }
}

/** The name this browser used last, else the server's default. */
function storedName(): string {
  try {
    return localStorage.getItem(OPERATOR_NAME_KEY) ?? DEFAULT_OPERATOR_NAME;
  } catch {
    return DEFAULT_OPERATOR_NAME;
  }
}
