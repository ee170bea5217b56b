/**
 * The bot check a server may ask an anonymous visitor to pass before its first message:
 * a line saying what it is for (or that the last try did not pass), and the provider's
 * widget. The provider's script draws into an element of the page (the chat's light DOM,
 * shown here through the `challenge` slot): its scripts look for their elements in the
 * document, and hCaptcha's puzzle positions itself against the page. A render module.
 */
import { html, nothing } from 'lit';
import type { Strings } from '../../i18n/strings.js';

/** What the line says: what the check is for, that the last try did not pass, that it did not load. */
export type ChallengeLine = 'ask' | 'failed' | 'unavailable';

export function renderChallenge(strings: Strings, line: ChallengeLine | undefined) {
  if (!line) return nothing;
  const words =
    line === 'ask'
      ? strings.challengeAsk
      : line === 'failed'
        ? strings.errors.challenge_failed
        : strings.challengeUnavailable;
  return html`<div class="challenge" part="challenge">
    <p role="status" data-line=${line}>${words}</p>
    <slot name="challenge"></slot>
  </div>`;
}
