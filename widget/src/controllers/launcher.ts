/**
 * Launcher mode (`mode="launcher"`): a round button in a corner of the page that opens the
 * chat in a panel. This keeps its state: open or closed (remembered per `session-key`, so
 * a reload shows the page as it was left), whether the panel was ever opened (its content
 * is built only then, while the socket connects at once so a running turn's resume is
 * ready), and the unread dot of an answer that ended while it was closed.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

interface LauncherHost extends ReactiveControllerHost {
  readonly sessionKey: string;
  readonly mode: 'inline' | 'launcher';
}

export class Launcher implements ReactiveController {
  isOpen = false;
  /** The panel's content exists from the first opening on. */
  built = false;
  /** An answer ended while the panel was closed. */
  unread = false;

  constructor(private readonly host: LauncherHost) {
    host.addController(this);
  }

  hostConnected(): void {
    if (this.host.mode !== 'launcher') return;
    this.isOpen = this.#remembered() === 'open';
    this.built ||= this.isOpen;
  }

  /** Opens or closes; false when it was so already. */
  set(open: boolean): boolean {
    if (open === this.isOpen) return false;
    this.isOpen = open;
    if (open) {
      this.built = true;
      this.unread = false;
    }
    try {
      localStorage.setItem(this.#key, open ? 'open' : 'closed');
    } catch {
      // Storage refused (private mode, a full quota): remembered for this page only.
    }
    this.host.requestUpdate();
    return true;
  }

  /** An answer ended: a dot on the button when nobody saw it. */
  answered(): void {
    if (this.host.mode !== 'launcher' || this.isOpen) return;
    this.unread = true;
    this.host.requestUpdate();
  }

  get #key(): string {
    return `${this.host.sessionKey}:panel`;
  }

  #remembered(): string | null {
    try {
      return localStorage.getItem(this.#key);
    } catch {
      return null;
    }
  }
}
