/**
 * Whether the owner is logged in: asked once when the page opens (`GET /session`), then
 * changed by the login form, the logout button and any answer that says the login has
 * ended (401 anywhere). The cookie is HttpOnly: the page knows only what the server says.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { LoggedOut, failureText, type ConsoleApi } from './console-api.js';

/** `checking` until the server has answered whether the cookie is still good. */
export type SessionState = 'checking' | 'out' | 'in';

export class ConsoleSession implements ReactiveController {
  state: SessionState = 'checking';
  /** Why the form is shown again, or why the last try failed: the server's words. */
  error = '';
  /** A login or logout is on its way: its button waits. */
  busy = false;
  /** The server lets a person answer (its replies and live view exist): known once in. */
  handoffOffered = false;

  readonly #host: ReactiveControllerHost;
  readonly #api: ConsoleApi;
  readonly #changed: (state: SessionState) => void;

  constructor(host: ReactiveControllerHost, api: ConsoleApi, changed: (state: SessionState) => void) {
    this.#host = host;
    this.#api = api;
    this.#changed = changed;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.state === 'checking') void this.#check();
  }

  async login(token: string): Promise<void> {
    if (this.busy) return;
    this.#set({ busy: true, error: '' });
    try {
      await this.#api.login(token);
      // What the server offers comes with the session, which the login has just made.
      const info = await this.#api.session();
      this.#set({ busy: false, handoffOffered: info?.handoffOffered === true });
      this.#enter(info ? 'in' : 'out');
    } catch (error) {
      this.#set({ busy: false, error: failureText(error) });
    }
  }

  async logout(): Promise<void> {
    if (this.busy) return;
    this.#set({ busy: true, error: '' });
    try {
      await this.#api.logout();
      this.#set({ busy: false });
      this.#enter('out');
    } catch (error) {
      // Logged out already (401) is what was asked; anything else leaves the owner in.
      this.#set({ busy: false });
      if (error instanceof LoggedOut) this.#enter('out');
      else this.#set({ error: failureText(error) });
    }
  }

  /** A request was refused with 401: the form again, saying why. */
  ended(message: string): void {
    if (this.state === 'out') return;
    this.#set({ error: message });
    this.#enter('out');
  }

  /** Something was refused without saying why (the live view's stream): whether the login holds. */
  async recheck(): Promise<void> {
    if (this.state !== 'in') return;
    try {
      if (!(await this.#api.session())) this.ended(new LoggedOut().message);
    } catch {
      // The server cannot say: the page stays, and the part that failed says so itself.
    }
  }

  async #check(): Promise<void> {
    try {
      const info = await this.#api.session();
      this.handoffOffered = info?.handoffOffered === true;
      this.#enter(info ? 'in' : 'out');
    } catch (error) {
      // The server cannot say: the form, with why, rather than a page that waits forever.
      this.#set({ error: failureText(error) });
      this.#enter('out');
    }
  }

  #enter(state: SessionState): void {
    this.state = state;
    this.#host.requestUpdate();
    this.#changed(state);
  }

  #set(values: Partial<Pick<ConsoleSession, 'error' | 'busy' | 'handoffOffered'>>): void {
    Object.assign(this, values);
    this.#host.requestUpdate();
  }
}
