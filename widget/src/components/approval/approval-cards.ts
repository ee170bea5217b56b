/**
 * Approval cards: a tool call that waits for the user's decision before it runs (its
 * name, its arguments, how long is left, and Approve / Deny, plus "Allow for this
 * conversation" where the server's policy allows it). A card stays until the call's
 * outcome arrives; once decided, its buttons are disabled so a double click sends once.
 *
 * A file of its own (`aalis-chat-approval-cards.js`), loaded the first time a call waits
 * (approvals.ts): only sites that make tools wait for approval ever show one. It borrows
 * the chat's Lit and helpers (../../shared/lazy-view.ts): it imports nothing at run time.
 */
import type { TemplateResult } from 'lit';
import type { ToolApproval, ToolDecisionFrame } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import type { ViewKit } from '../../shared/lazy-view.js';
import { approvalStyles } from './approval.styles.js';

const MINUTE = 60_000;

export type Decide = (
  callId: string,
  decision: ToolDecisionFrame['decision'],
  remember?: ToolDecisionFrame['remember'],
) => void;

export interface ApprovalState {
  strings: Strings;
  /** Now, on the server's clock: requests expire on it. */
  serverNow: number;
  /** Calls decided here whose outcome has not arrived yet. */
  decided: ReadonlySet<string>;
}

/** Whole minutes left to decide, rounded down (never more than is left), never below 0. */
const minutesLeft = (approval: ToolApproval, serverNow: number): number =>
  Math.max(0, Math.floor((approval.expiresAt - serverNow) / MINUTE));

export function approvalCards({ html, nothing, css, repeat, pretty, toolIcon }: ViewKit) {
  function renderApproval(approval: ToolApproval, state: ApprovalState, decide: Decide): TemplateResult {
    const { strings } = state;
    const { callId, name, policy } = approval;
    const done = state.decided.has(callId);
    const button = (
      label: string,
      part: string,
      decision: ToolDecisionFrame['decision'],
      remember?: 'session',
    ) =>
      html`<button
        type="button"
        class=${part}
        part=${part}
        ?disabled=${done}
        aria-disabled=${done ? 'true' : 'false'}
        @click=${() => decide(callId, decision, remember)}
      >
        ${label}
      </button>`;
    return html`<div
      class="approval-card"
      part="approval-card"
      role="group"
      aria-label=${strings.approvalAsk(name)}
      data-call-id=${callId}
    >
      <div class="approval-head">
        <span class="tool-icon" aria-hidden="true">${toolIcon}</span>
        <span class="approval-title">${strings.approvalAsk(name)}</span>
        <span class="approval-expires">${strings.expiresIn(minutesLeft(approval, state.serverNow))}</span>
      </div>
      ${
        approval.arguments === undefined
          ? nothing
          : // Focusable: long arguments scroll, by keyboard too.
            html`<pre class="approval-arguments" tabindex="0">${pretty(approval.arguments)}</pre>`
      }
      <div class="approval-actions">
        ${button(strings.approve, 'approve-button', 'approve')}
        ${policy === 'session' ? button(strings.allowSession, 'allow-session-button', 'approve', 'session') : nothing}
        ${button(strings.deny, 'deny-button', 'deny')}
      </div>
    </div>`;
  }

  return {
    styles: approvalStyles(css),
    /** One card per waiting call, in the order given (by index). */
    render: (approvals: readonly ToolApproval[], state: ApprovalState, decide: Decide): unknown =>
      repeat(
        approvals,
        (a) => a.callId,
        (a) => renderApproval(a, state, decide),
      ),
  };
}

export type ApprovalCards = ReturnType<typeof approvalCards>;
