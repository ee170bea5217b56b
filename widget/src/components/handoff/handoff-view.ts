/**
 * A person instead of the model (PROTOCOL.md section 8), as the visitor sees it: the
 * toolbar's "Talk to a person" button, and the line over the composer that says where the
 * conversation stands. A person's reply is a bubble of its own (../message/message.ts).
 *
 * A file of its own (`aalis-chat-handoff-view.js`), loaded where a site offers a person or
 * the conversation has one (controllers/handoff.ts): most never do. It borrows the chat's
 * Lit (../../shared/lazy-view.ts): it imports nothing at run time.
 */
import type { Handoff } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import type { ViewKit } from '../../shared/lazy-view.js';
import { handoffStyles } from './handoff.styles.js';

export function handoffView({ html, css }: ViewKit) {
  return {
    styles: handoffStyles(css),

    button: (strings: Strings, ask: () => void): unknown =>
      html`<button type="button" class="action handoff-button" part="handoff-button" @click=${ask}>
        ${strings.talkToPerson}
      </button>`,

    /**
     * The line: waiting for a person, talking with one, or back with the model (`back`). It is
     * there, empty, whenever a person is offered: a live region announces the words that change
     * in it, not words it was created with.
     */
    line(strings: Strings, handoff: Handoff | undefined, back: boolean): unknown {
      const text =
        handoff?.state === 'waiting'
          ? strings.handoffWaiting
          : handoff
            ? strings.handoffActive(handoff.operator || strings.operator)
            : back
              ? strings.handoffEnded
              : '';
      return html`<div
        class="handoff-notice ${text ? 'said' : ''}"
        part="handoff-notice"
        role="status"
        data-state=${handoff?.state ?? 'off'}
      >
        ${text}
      </div>`;
    },
  };
}

export type HandoffView = ReturnType<typeof handoffView>;
