/**
 * What the composer shows of images: the attach button (with its hidden file input), the
 * attachments waiting to go with the question, and the images a question was sent with.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { ImageRef } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { closeIcon, imageIcon } from '../../shared/icons.js';

/** An image the visitor attached, as the composer shows it: uploading, ready or refused. */
export interface Attachment {
  key: string;
  name: string;
  /** The file, shown until the question goes. */
  preview: string;
  state: 'uploading' | 'ready' | 'failed';
  ref?: ImageRef;
  /** Why the upload failed, in the visitor's language. */
  error?: string;
  abort: AbortController;
}

export function renderAttachButton(
  strings: Strings,
  types: readonly string[],
  picked: (files: File[]) => void,
): TemplateResult {
  const choose = (event: Event) =>
    (event.currentTarget as HTMLElement).parentElement
      ?.querySelector<HTMLInputElement>('input[type=file]')
      ?.click();
  return html`<span class="attach">
    <button
      type="button"
      class="attach-button"
      part="attach-button"
      aria-label=${strings.attachImages}
      title=${strings.attachImages}
      @click=${choose}
    >
      ${imageIcon}
    </button>
    <input
      type="file"
      hidden
      multiple
      accept=${types.join(',')}
      @change=${(event: Event) => {
        const input = event.currentTarget as HTMLInputElement;
        // Copied first: clearing the input (so that the same file can be picked again after
        // it was removed) empties its FileList, which the checks still read.
        const files = [...(input.files ?? [])];
        input.value = '';
        if (files.length) picked(files);
      }}
    />
  </span>`;
}

export function renderAttachments(
  items: readonly Attachment[],
  strings: Strings,
  remove: (key: string) => void,
): TemplateResult | typeof nothing {
  if (!items.length) return nothing;
  return html`<ul class="attachments" part="attachments" aria-label=${strings.attachments}>
    ${items.map(
      (item) =>
        html`<li
          class="attachment"
          part="attachment"
          data-state=${item.state}
          title=${item.error ?? item.name}
        >
          <img src=${item.preview} alt=${item.name} />
          ${
            item.state === 'ready'
              ? nothing
              : html`<span class="attachment-state" role="status"
                  >${item.state === 'uploading' ? strings.uploading : (item.error ?? strings.uploadFailed)}</span
                >`
          }
          <button
            type="button"
            class="remove-attachment"
            aria-label=${strings.removeImage(item.name)}
            @click=${() => remove(item.key)}
          >
            ${closeIcon}
          </button>
        </li>`,
    )}
  </ul>`;
}

/** The images a question was sent with: each links to itself at full size. */
export function renderMessageImages(
  images: readonly ImageRef[] | undefined,
  strings: Strings,
  urlOf: (id: string) => string,
): TemplateResult | typeof nothing {
  if (!images?.length) return nothing;
  return html`<div class="message-images" part="message-images">
    ${images.map((image, index) => {
      const url = urlOf(image.id);
      return html`<a href=${url} target="_blank" rel="noopener noreferrer">
        <img
          part="message-image"
          src=${url}
          width=${image.width}
          height=${image.height}
          loading="lazy"
          alt=${strings.attachedImage(index + 1, images.length)}
        />
      </a>`;
    })}
  </div>`;
}
