/**
 * The conversation the owner opened from the list, read whole, and the erasure of its
 * visitor: asked first (the visitor's id shown, since everything of that visitor goes,
 * not only this conversation), then done, then the list is asked again. What follows the
 * open conversation (its live view, the reply being written) hears of each change.
 */
import type { ReactiveControllerHost } from 'lit';
import { LoggedOut, failureText, type ArchivedConversation, type ConsoleApi } from './console-api.js';

export interface OpenConversationCallbacks {
  loggedOut(error: LoggedOut): void;
  /** The visitor is gone: the list must be asked again. */
  erased(visitorId: string): void;
  /** Another conversation is open, or none (undefined). */
  changed(sessionId: string | undefined): void;
}

export class OpenConversation {
  /** The conversation asked for; undefined while none is open. */
  sessionId: string | undefined;
  conversation: ArchivedConversation | undefined;
  loading = false;
  error = '';
  /** The erasure is asked about (the confirmation shows) or on its way. */
  erase: 'asking' | 'erasing' | undefined;
  /** Said after an erasure, in place of the closed transcript. */
  notice = '';

  readonly #host: ReactiveControllerHost;
  readonly #api: ConsoleApi;
  readonly #callbacks: OpenConversationCallbacks;

  constructor(host: ReactiveControllerHost, api: ConsoleApi, callbacks: OpenConversationCallbacks) {
    this.#host = host;
    this.#api = api;
    this.#callbacks = callbacks;
  }

  async open(sessionId: string): Promise<void> {
    this.#reset({ sessionId, loading: true });
    try {
      const conversation = await this.#api.conversation(sessionId);
      if (this.sessionId !== sessionId) return;
      this.conversation = conversation;
    } catch (error) {
      if (this.sessionId !== sessionId) return;
      if (error instanceof LoggedOut) return this.#callbacks.loggedOut(error);
      this.error = failureText(error);
    } finally {
      if (this.sessionId === sessionId) {
        this.loading = false;
        this.#host.requestUpdate();
      }
    }
  }

  close(notice = ''): void {
    this.#reset({ notice });
  }

  askErase(): void {
    if (this.conversation?.visitorId) this.#set({ erase: 'asking', error: '' });
  }

  cancelErase(): void {
    if (this.erase === 'asking') this.#set({ erase: undefined });
  }

  async confirmErase(): Promise<void> {
    const visitorId = this.conversation?.visitorId;
    if (!visitorId || this.erase !== 'asking') return;
    this.#set({ erase: 'erasing' });
    try {
      await this.#api.eraseVisitor(visitorId);
      this.close(`Everything of visitor ${visitorId} was erased.`);
      this.#callbacks.erased(visitorId);
    } catch (error) {
      if (error instanceof LoggedOut) return this.#callbacks.loggedOut(error);
      this.#set({ erase: undefined, error: failureText(error) });
    }
  }

  #reset(values: Partial<Pick<OpenConversation, 'sessionId' | 'loading' | 'notice'>>): void {
    const before = this.sessionId;
    Object.assign(this, { sessionId: undefined, conversation: undefined, loading: false });
    Object.assign(this, { error: '', erase: undefined, notice: '' }, values);
    this.#host.requestUpdate();
    // Opened again (a click on its row once more) counts too: its live view starts afresh.
    if (before !== undefined || this.sessionId !== undefined) this.#callbacks.changed(this.sessionId);
  }

  #set(values: Partial<Pick<OpenConversation, 'erase' | 'error'>>): void {
    Object.assign(this, values);
    this.#host.requestUpdate();
  }
}
