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

let loading: Promise<void> | undefined;

/** The requests of the running turn's call `callId`, in the order they came; `nothing` for none. */
export function renderElicitations(
  callId: string,
  source: ElicitationSource,
  host: ElicitationHost,
): unknown {
  const asked = [...(source.view.turn?.elicitations.values() ?? [])].filter((e) => e.callId === callId);
  if (!asked.length) return nothing;
  // Loaded and defined once; a failed load (offline) is tried again on the next render.
  loading ??= import('./elicitation-element.js').then(
    (part) => part.defineElicitation({ LitElement, html, css, nothing, styles: [themeTokens, targetSizes] }),
    () => void (loading = undefined),
  );
  const { answered } = source.elicitations;
  return repeat(
    asked,
    (e) => e.elicitationId,
    (e) =>
      html`<aalis-elicitation
        part="elicitation"
        exportparts="elicitation-form, elicitation-submit, elicitation-decline, elicitation-open"
        theme=${host.theme}
        .elicitation=${e}
        .chat=${host}
        .strings=${host.strings}
        .answered=${answered.get(e.elicitationId)}
        .offset=${source.offset}
      ></aalis-elicitation>`,
  );
}
