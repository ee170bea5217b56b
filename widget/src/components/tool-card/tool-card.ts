import { html } from 'lit';
import { property } from 'lit/decorators.js';
import { elapsedSince, type ToolCallProgressEntry } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { seconds } from '../../shared/format.js';
import { toolIcon } from '../../shared/icons.js';
import { themeTokens } from '../../shared/theme-tokens.js';
import { TickingElement } from '../../shared/ticking.js';
import { toolCardElementStyles } from './tool-card.styles.js';

/** No fragment for this long: the tool card says it is waiting for the model. */
export const STALL_MS = 5_000;

/**
 * The tool card while the model writes its call: `<icon> <name> 142 chars · 3.2s`. Its
 * tag, class and parts keep the names they were published with (`aalis-tool-progress`,
 * `pending-card*`). It ticks on its own (100 ms), so only the cards re-render while a
 * model writes a tool call, never the whole transcript. When its index has had no fragment for 5 s it says so, so a user can tell
 * a slow model from a dead one.
 *
 * @csspart icon - The tool icon.
 * @csspart name - The tool's name.
 * @csspart meta - The character count and elapsed time.
 *
 * Inside `<aalis-chat>` these parts are exported as `pending-card-icon`,
 * `pending-card-name` and `pending-card-meta`.
 */
export class AalisToolProgress extends TickingElement {
  static override styles = [themeTokens, toolCardElementStyles];

  @property({ attribute: false }) entry!: ToolCallProgressEntry;
  /** `localNow - serverTime`: the card counts on the server's clock. */
  @property({ attribute: false }) offset = 0;
  @property({ attribute: false }) strings!: Strings;
  @property({ type: Boolean, reflect: true }) stalled = false;
  /** `light`, `dark` or `auto`, as the chat it is in: picks the default colours. */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'auto';

  protected override willUpdate(): void {
    this.stalled = elapsedSince(this.entry.updatedAt, Date.now(), this.offset) >= STALL_MS;
  }

  protected override render() {
    const { name, charsAccumulated, startedAt } = this.entry;
    const elapsed = seconds(elapsedSince(startedAt, Date.now(), this.offset));
    const detail = this.stalled ? this.strings.waitingForModel : this.strings.chars(charsAccumulated);
    return html`<span class="icon" part="icon" aria-hidden="true">${toolIcon}</span>
      <span class="name" part="name" title=${name}>${name || this.strings.generating}</span>
      <span class="meta" part="meta">${detail} · ${elapsed}</span>`;
  }
}
