/**
 * What the visitor does to the transcript's messages, as a controller without lifecycle
 * of its own: copy
 * an answer, rate it (a thumb, then an optional comment), regenerate the last answer,
 * edit the last question. It keeps which form is open and which button says "Copied";
 * the frames go through the `Composer`, which gives back what the server refuses.
 */
import { plainText } from '../components/message/message.js';
import { feedbackForm, type ActionHandlers } from '../components/message-actions/message-actions.js';
import { versionsView } from '../components/versions/versions.js';
import type { Strings } from '../i18n/strings.js';
import type { ViewHost } from '../shared/lazy-view.js';
import type { Composer } from './composer.js';

export interface MessageActionsHost extends ViewHost {
  readonly strings: Strings;
  /** The element's public `feedback()`: it checks the answer is shown. */
  feedback(messageId: string, rating: 'up' | 'down', comment?: string): boolean;
}

/** What the actions ask of the rest of the element. */
export interface MessageActionsCallbacks {
  announce(text: string): void;
  /** Moves the focus to `selector` (the text box by default) once rendered. */
  focus(selector?: string): void;
}

export class MessageActions {
  /** The last question, while it is being edited. */
  editing: string | undefined = undefined;
  /** The answer whose comment form is open, and the one whose copy button says "Copied". */
  commenting: string | undefined = undefined;
  copied: string | undefined = undefined;
  /** The thumb last pressed here, by answer: its comment goes with it, before the server's echo. */
  readonly #ratings = new Map<string, 'up' | 'down'>();

  readonly #host: MessageActionsHost;
  readonly #composer: Composer;
  readonly #callbacks: MessageActionsCallbacks;

  constructor(host: MessageActionsHost, composer: Composer, callbacks: MessageActionsCallbacks) {
    this.#host = host;
    this.#composer = composer;
    this.#callbacks = callbacks;
  }

  /** Another conversation: no form stays open. */
  closeForms(): void {
    this.#set({ editing: undefined, commenting: undefined });
  }

  startEdit(messageId: string): void {
    this.#set({ editing: messageId });
    // The form may wait for its file (components/versions/versions.ts).
    versionsView.whenLoaded(this.#host, () => this.#callbacks.focus('.edit-form textarea'));
  }

  readonly edit = {
    save: (text: string) => {
      const messageId = this.editing;
      if (!messageId || !this.#composer.edit(messageId, text)) return;
      this.#set({ editing: undefined });
      this.#callbacks.focus();
    },
    cancel: () => {
      this.#set({ editing: undefined });
      this.#callbacks.focus();
    },
  };

  readonly actions: ActionHandlers = {
    copy: (message) => {
      void navigator.clipboard?.writeText(plainText(message)).then(() => {
        this.#set({ copied: message.id });
        setTimeout(() => {
          if (this.copied === message.id) this.#set({ copied: undefined });
        }, 1500);
      });
    },
    rate: (message, rating) => {
      if (!this.#host.feedback(message.id, rating)) return;
      this.#ratings.set(message.id, rating);
      this.#set({ commenting: message.id });
      // The form may wait for its file (components/message-actions/message-actions.ts).
      feedbackForm.whenLoaded(this.#host, () => this.#callbacks.focus('.feedback-form input'));
    },
    comment: (message, text) => {
      const rating = this.#ratings.get(message.id) ?? message.feedback?.rating;
      if (text.trim() && rating && !this.#host.feedback(message.id, rating, text)) return;
      this.#set({ commenting: undefined });
      this.#callbacks.announce(this.#host.strings.feedbackThanks);
      this.#callbacks.focus();
    },
    closeComment: () => {
      this.#set({ commenting: undefined });
      this.#callbacks.focus();
    },
    regenerate: (message) => {
      if (this.#composer.regenerate(message.id)) this.#callbacks.focus();
    },
  };

  #set(change: Partial<Pick<MessageActions, 'editing' | 'commenting' | 'copied'>>): void {
    Object.assign(this, change);
    this.#host.requestUpdate();
  }
}
