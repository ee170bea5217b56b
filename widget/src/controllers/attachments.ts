/**
 * The images a visitor attaches to the next question, as a Lit ReactiveController: each
 * file is checked here first (its type by its bytes, its size, the count: the server's
 * `uploads` limits), with a message that names it, then uploaded at once over HTTP with
 * the session's ticket, so that Send has only ids to send. A thumbnail shows the file
 * itself (an object URL) until the question goes.
 */
import type { Attachment } from '../components/attachments/attachments.js';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { IMAGE_SIGNATURE_BYTES, imageTypeOf, type ImageRef, type Uploads } from '@aalis/protocol/client';
import type { Strings } from '../i18n/strings.js';

export type { Attachment };

export interface AttachmentsHost extends ReactiveControllerHost {
  readonly strings: Strings;
}

/** What the server said, by its refusal's `code`, in the visitor's language. */
function uploadError(strings: Strings, code: string | undefined, name: string, maxBytes: number): string {
  switch (code) {
    case 'not_an_image':
      return strings.notAnImage(name);
    case 'too_big':
      return strings.imageTooBig(name, megabytes(maxBytes));
    case 'ticket_expired':
      return strings.uploadExpired;
    default:
      return strings.uploadFailed;
  }
}

const megabytes = (bytes: number): string => String(Math.round((bytes / 1024 / 1024) * 10) / 10);

let nextKey = 0;

export class Attachments implements ReactiveController {
  /** The server's offer (`ready.uploads`), and where to upload; none: images are off. */
  offer: Uploads | undefined;
  endpoint: URL | undefined;
  items: Attachment[] = [];

  constructor(private readonly host: AttachmentsHost) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.clear();
  }

  /** Whether every attachment is uploaded (none failed, none still going). */
  get settled(): boolean {
    return this.items.every((item) => item.state === 'ready');
  }

  /** The uploaded images' ids, in the order attached. */
  get ids(): string[] {
    return this.items.flatMap((item) => (item.ref ? [item.ref.id] : []));
  }

  /**
   * Checks and uploads files; returns what was refused before upload (one sentence per
   * file), for the notice line. Files that are not images in a paste or drop are refused
   * the same way: the visitor meant to attach them.
   */
  async add(files: Iterable<File>): Promise<string[]> {
    const { offer, endpoint } = this;
    const { strings } = this.host;
    if (!offer || !endpoint) return [];
    const refused: string[] = [];
    for (const file of files) {
      if (this.items.length >= offer.maxCount) {
        refused.push(strings.tooManyImages(offer.maxCount));
        break;
      }
      const type = imageTypeOf(new Uint8Array(await file.slice(0, IMAGE_SIGNATURE_BYTES).arrayBuffer()));
      // Another conversation (or server) meanwhile: its ticket is not this one's.
      if (this.offer !== offer) return refused;
      if (!type || !offer.types.includes(type)) {
        refused.push(strings.notAnImage(file.name || type || 'file'));
        continue;
      }
      if (file.size > offer.maxBytes) {
        refused.push(strings.imageTooBig(file.name, megabytes(offer.maxBytes)));
        continue;
      }
      const item: Attachment = {
        key: `a${nextKey++}`,
        name: file.name || type,
        preview: URL.createObjectURL(file),
        state: 'uploading',
        abort: new AbortController(),
      };
      this.items = [...this.items, item];
      void this.#upload(item, file, type, offer, endpoint);
    }
    this.host.requestUpdate();
    return refused;
  }

  remove(key: string): void {
    const item = this.items.find((each) => each.key === key);
    if (!item) return;
    item.abort.abort();
    URL.revokeObjectURL(item.preview);
    this.items = this.items.filter((each) => each !== item);
    this.host.requestUpdate();
  }

  /** The attachments leave with their question; `take` gives them to keep until it is accepted. */
  take(): Attachment[] {
    const taken = this.items;
    this.items = [];
    this.host.requestUpdate();
    return taken;
  }

  /**
   * A question the server refused gets its attachments back, before any added meanwhile.
   * `failed`: the server refused the images themselves; each says so, to be removed.
   */
  restore(items: Attachment[], failed?: string): void {
    const back = failed
      ? items.map((item): Attachment => ({ ...item, state: 'failed', error: failed }))
      : items;
    this.items = [...back, ...this.items];
    this.host.requestUpdate();
  }

  /** Forgets every attachment (another conversation, the element gone). */
  clear(): void {
    for (const item of this.items) {
      item.abort.abort();
      URL.revokeObjectURL(item.preview);
    }
    this.items = [];
    this.host.requestUpdate();
  }

  async #upload(item: Attachment, file: File, type: string, offer: Uploads, endpoint: URL): Promise<void> {
    let answer: Partial<ImageRef> & { code?: string } = {};
    let ok = false;
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${offer.ticket}`, 'content-type': type },
        body: file,
        signal: item.abort.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
      ok = response.status === 201;
      answer = (await response.json().catch(() => ({}))) as typeof answer;
    } catch {
      if (item.abort.signal.aborted) return;
    }
    // Removed meanwhile: nothing to show.
    if (!this.items.includes(item)) return;
    const done: Attachment = ok
      ? { ...item, state: 'ready', ref: answer as ImageRef }
      : {
          ...item,
          state: 'failed',
          error: uploadError(this.host.strings, answer.code, item.name, offer.maxBytes),
        };
    this.items = this.items.map((each) => (each === item ? done : each));
    this.host.requestUpdate();
  }
}
