/**
 * The connection line above the transcript: connecting, reconnecting in N s (with "retry
 * now"), offline, or why the server refused this page. Hidden while connected.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { ConnectionState } from '../../shared/connection-state.js';
import type { Strings } from '../../i18n/strings.js';

export interface StatusLineState {
  strings: Strings;
  state: ConnectionState;
  /** Why the server refused the page, for good; empty otherwise. */
  refusal: string;
  retryInSeconds: number;
}

export function renderStatusLine(
  { strings, state, refusal, retryInSeconds }: StatusLineState,
  retryNow: () => void,
): TemplateResult {
  const text = refusal
    ? `${strings.offline}: ${refusal}`
    : state === 'connecting'
      ? strings.connecting
      : state === 'reconnecting'
        ? strings.reconnecting(retryInSeconds)
        : strings.offline;
  const canRetry = state === 'reconnecting' || (state === 'offline' && !refusal);
  return html`<div
    class="status ${refusal ? 'refused' : ''}"
    part="status"
    role="status"
    ?hidden=${state === 'connected'}
    data-state=${state}
  >
    <span>${text}</span>
    ${canRetry ? html`<button type="button" @click=${retryNow}>${strings.retryNow}</button>` : nothing}
  </div>`;
}
