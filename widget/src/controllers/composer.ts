/**
 * What the visitor sends, as a controller (its state; its host asked to render; no
 * lifecycle of its own, so not registered with the host): the draft and the text box's
 * events, the images attached to it (`Attachments`), and every frame that carries the
 * visitor's words (send, edit, regenerate, feedback). A message the server refused comes
 * back into the text box with its images, unless the visitor has typed something else,
 * so nothing typed is lost; the notice line says why.
 */
import type { ReactiveControllerHost } from 'lit';
import { ErrorCode, Limits, type ErrorFrame, type ReadyFrame } from '@aalis/protocol/client';
import type { ComposerHandlers } from '../components/composer/composer.js';
import { fitToText } from '../components/composer/fit-to-text.js';
import { AalisFeedbackEvent, AalisSendEvent } from '../shared/events.js';
import { isSendKey } from '../shared/keys.js';
import { errorText, type Strings } from '../i18n/strings.js';
import type { Attachment, Attachments } from './attachments.js';
import type { ChatConnection } from './chat-connection.js';

/** Matches a `send` (or `edit`, `regenerate`) to its echo or its refusal. */
const newClientMessageId = (): string => `c-${Math.random().toString(36).slice(2, 10)}`;

export interface ComposerHost extends ReactiveControllerHost, HTMLElement {
  readonly strings: Strings;
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** What the composer asks of the rest of the element. */
export interface ComposerCallbacks {
  /** A turn runs: Enter does not send. */
  running(): boolean;
  /** Something went: the errors of the last turn no longer apply. */
  sent(): void;
  /** The stop button. */
  stop(): void;
}

export class Composer {
  /** The text box's text. */
  draft = '';
  /** Why the last message could not be sent, or what was refused. */
  notice = '';
  /** Files are dragged over the composer. */
  dragging = false;
  #composing = false;
  /** Sent messages the server has not yet accepted, by `clientMessageId`: given back if refused. */
  readonly #unconfirmed = new Map<string, string>();
  /** The images that went with those messages: given back with the text, else let go. */
  readonly #unconfirmedImages = new Map<string, Attachment[]>();
  /** A message refused for a bot challenge, given back to the box: sent again once it passes. */
  #held: string | undefined;

  readonly #host: ComposerHost;
  readonly #connection: ChatConnection;
  readonly #callbacks: ComposerCallbacks;

  constructor(
    host: ComposerHost,
    readonly attachments: Attachments,
    connection: ChatConnection,
    callbacks: ComposerCallbacks,
  ) {
    this.#host = host;
    this.#connection = connection;
    this.#callbacks = callbacks;
  }

  /** Changes what the composer shows, and renders it. */
  show(change: Partial<Pick<Composer, 'draft' | 'notice' | 'dragging'>>): void {
    Object.assign(this, change);
    this.#host.requestUpdate();
  }

  /** `fromComposer`: the text is in the text box, and stays there when it cannot go. */
  send(text: string, fromComposer: boolean): boolean {
    const trimmed = text.trim();
    const { strings } = this.#host;
    // The composer's images go with its text; send() from code sends text alone.
    const attachments = fromComposer ? this.attachments : undefined;
    if (attachments && !attachments.settled) {
      const uploading = attachments.items.some((item) => item.state === 'uploading');
      this.show({ notice: uploading ? strings.waitForUploads : strings.removeFailedUploads });
      return false;
    }
    const images = attachments?.ids ?? [];
    if (!trimmed && !images.length) return false;
    if (trimmed.length > Limits.messageText) {
      this.show({ notice: strings.tooLong(trimmed.length, Limits.messageText) });
      return false;
    }
    const clientMessageId = newClientMessageId();
    const frame = {
      type: 'send',
      text: trimmed,
      clientMessageId,
      ...(images.length ? { images } : {}),
    } as const;
    if (!this.#connection.send(frame)) {
      this.show({
        notice: this.#connection.refusal
          ? strings.cannotSend
          : fromComposer
            ? strings.notConnected
            : strings.notSent,
      });
      return false;
    }
    this.#unconfirmed.set(clientMessageId, trimmed);
    if (images.length) this.#unconfirmedImages.set(clientMessageId, attachments!.take());
    this.show({ notice: '' });
    this.#callbacks.sent();
    this.#host.dispatchEvent(new AalisSendEvent(trimmed));
    return true;
  }

  /** Sends the last question again, edited; refused after all (busy), its text comes back to the box. */
  edit(messageId: string, text: string): boolean {
    const clientMessageId = newClientMessageId();
    if (!this.#connection.send({ type: 'edit', messageId, text, clientMessageId })) {
      this.show({ notice: this.#host.strings.notSent });
      return false;
    }
    this.#unconfirmed.set(clientMessageId, text);
    this.#callbacks.sent();
    this.#host.dispatchEvent(new AalisSendEvent(text));
    return true;
  }

  /** Asks for a new answer to the last question. */
  regenerate(messageId: string): boolean {
    if (!this.#connection.send({ type: 'regenerate', messageId, clientMessageId: newClientMessageId() })) {
      this.show({ notice: this.#host.strings.notSent });
      return false;
    }
    this.#callbacks.sent();
    return true;
  }

  /** Rates an answer; false (and a notice) when it cannot be sent now. */
  feedback(messageId: string, rating: 'up' | 'down', comment?: string): boolean {
    const sent = this.#connection.send({
      type: 'feedback',
      messageId,
      rating,
      ...(comment ? { comment } : {}),
    });
    if (!sent) {
      this.show({ notice: this.#host.strings.notSent });
      return false;
    }
    this.#host.dispatchEvent(new AalisFeedbackEvent(messageId, rating, comment || undefined));
    return true;
  }

  /** A (re)joined session: nothing is waiting for an answer any more, and uploads follow its offer. */
  ready(frame: ReadyFrame, switched: boolean): void {
    this.#unconfirmed.clear();
    this.#forgetUnconfirmedImages();
    // Uploads belong to their session: another one (switched, or a new one) starts bare.
    if (switched) this.attachments.clear();
    this.attachments.offer = frame.uploads;
    this.attachments.endpoint = new URL('images', this.#connection.serverBase);
    this.show({ notice: '' });
  }

  accepted(clientMessageId: string): void {
    this.#unconfirmed.delete(clientMessageId);
    this.#forgetUnconfirmedImages(clientMessageId);
  }

  /**
   * A refused `send` (busy, rate limited, not saved): its text goes back into the
   * composer, unless the visitor has started typing something else, so nothing typed is
   * lost. Refused before it was accepted, the notice line says why.
   */
  refused(frame: ErrorFrame): void {
    const { strings } = this.#host;
    const imagesRefused = frame.code === ErrorCode.ImagesUnsupported ? errorText(strings, frame) : undefined;
    const { clientMessageId } = frame;
    if (clientMessageId !== undefined) {
      const text = this.#unconfirmed.get(clientMessageId);
      this.#unconfirmed.delete(clientMessageId);
      if (text !== undefined && !this.draft.trim()) {
        this.show({ draft: text });
        this.#fitAfterUpdate();
        if (frame.code === ErrorCode.ChallengeRequired) this.#held = text;
      }
      const images = this.#unconfirmedImages.get(clientMessageId);
      this.#unconfirmedImages.delete(clientMessageId);
      if (images) this.attachments.restore(images, imagesRefused);
    }
    // No answer was stopped: the words for `shutting_down` would be wrong. A challenge's
    // own box says what it wants, above.
    if (!frame.sessionId && !frame.challenge)
      this.show({
        notice: frame.code === ErrorCode.ShuttingDown ? strings.restarting : errorText(strings, frame),
      });
  }

  /**
   * The bot challenge passed: the message it held back goes again, with its images, if the
   * box still holds it as it came back. Words changed since are the visitor's, still being
   * written: they wait for Send.
   */
  sendHeld(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && this.draft.trim() === held) this.handlers.send();
  }

  /** The visitor is in the text box (or another control of the composer), which is empty. */
  focusedAndEmpty(): boolean {
    const active = this.#host.shadowRoot?.activeElement;
    const inside = !!active && !!this.#host.renderRoot.querySelector('.composer')?.contains(active);
    return inside && !this.draft.trim();
  }

  /** Files pasted, dropped or picked: checked, then uploaded; refusals said on the notice line. */
  async attach(files: Iterable<File>): Promise<void> {
    const refused = await this.attachments.add(files);
    if (refused.length) this.show({ notice: refused.join(' ') });
  }

  readonly handlers: ComposerHandlers = {
    input: (event: Event) => {
      const textarea = event.target as HTMLTextAreaElement;
      this.show({ draft: textarea.value });
      fitToText(textarea);
    },
    keydown: (event: KeyboardEvent) => {
      if (!isSendKey(event, this.#composing)) return;
      event.preventDefault();
      if (!this.#callbacks.running()) this.handlers.send();
    },
    compositionstart: () => (this.#composing = true),
    compositionend: () => (this.#composing = false),
    send: () => {
      if (!this.send(this.draft, true)) return;
      this.show({ draft: '' });
      this.#fitAfterUpdate();
    },
    stop: () => this.#callbacks.stop(),
    paste: (event: ClipboardEvent) => {
      const files = [...(event.clipboardData?.files ?? [])];
      // Text pastes as text; files become attachments where the server takes images.
      if (!files.length || !this.attachments.offer) return;
      event.preventDefault();
      void this.attach(files);
    },
    dragover: (event: DragEvent) => {
      if (!this.attachments.offer || !event.dataTransfer?.types.includes('Files')) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      if (!this.dragging) this.show({ dragging: true });
    },
    dragleave: (event: DragEvent) => {
      // Leaving for one of its own children is not leaving.
      const to = event.relatedTarget as Node | null;
      if (!to || !(event.currentTarget as HTMLElement).contains(to))
        if (this.dragging) this.show({ dragging: false });
    },
    drop: (event: DragEvent) => {
      if (this.dragging) this.show({ dragging: false });
      const files = [...(event.dataTransfer?.files ?? [])];
      if (!files.length || !this.attachments.offer) return;
      event.preventDefault();
      void this.attach(files);
    },
  };

  /** The draft was set from here, not typed: the text box takes its size once it shows it. */
  #fitAfterUpdate(): void {
    void this.#host.updateComplete.then(() => {
      const textarea = this.#host.renderRoot.querySelector<HTMLTextAreaElement>('.composer textarea');
      if (textarea) fitToText(textarea);
    });
  }

  /** The previews of images a question took (or all of them), once it no longer needs them. */
  #forgetUnconfirmedImages(clientMessageId?: string): void {
    for (const [id, items] of this.#unconfirmedImages) {
      if (clientMessageId !== undefined && id !== clientMessageId) continue;
      for (const item of items) URL.revokeObjectURL(item.preview);
      this.#unconfirmedImages.delete(id);
    }
  }
}
