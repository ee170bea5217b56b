/**
 * Where MCP servers' requests for the visitor's input show: in the card of the tool call
 * that asked, one `<aalis-elicitation>` each (elicitation-element.ts). That element and
 * everything it needs is a part of its own, loaded the first time a request shows: the
 * script-tag file carries only this.
 */
import { LitElement, css, html, nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ChatView } from '@aalis/protocol/client';
import { targetSizes } from '../../shared/control-styles.js';
import { themeTokens } from '../../shared/theme-tokens.js';
import type { ElicitationHost, ElicitationRequests } from './elicitation-requests.js';

/** What the requests show from the conversation (controllers/conversation.ts). */
export interface ElicitationSource {
  readonly view: ChatView;
  readonly offset: number;
  readonly elicitations: Pick<ElicitationRequests, 'answered'>;
}

/** The element's part, loading or loaded: once a page. */
let loading: Promise<void> | undefined;

/** The requests of the running turn's call `callId`, in the order they came; `nothing` for none. */
export function renderElicitations(
  callId: string,
  source: ElicitationSource,
  host: ElicitationHost,
): unknown {
  const open = source.view.turn?.elicitations;
  // Most turns ask nothing: no list made for each call on each frame.
  if (!open?.size) return nothing;
  const asked = [...open.values()].filter((e) => e.callId === callId);
  if (!asked.length) return nothing;
  // Handed the chat's Lit (lit-kit.ts). Not loaded (offline, not served): a render some
  // seconds later tries again, as app-slot.ts does, not every render of a streaming answer.
  loading ??= import('./elicitation-element.js').then(
    (part) => part.defineElicitation({ LitElement, html, css, nothing, styles: [themeTokens, targetSizes] }),
    () => void setTimeout(() => (loading = undefined), 10_000),
  );
  const { answered } = source.elicitations;
  return repeat(
    asked,
    (e) => e.elicitationId,
    (e) =>
      html`<aalis-elicitation
        part="elicitation"
        exportparts="elicitation-form, elicitation-submit, elicitation-decline, elicitation-open"
        theme=${host.chat.theme}
        .elicitation=${e}
        .host=${host}
        .strings=${host.chat.strings}
        .answered=${answered.get(e.elicitationId)}
        .offset=${source.offset}
      ></aalis-elicitation>`,
  );
}
