/**
 * One conversation read whole, as the owner reviews it: every message in order, the
 * visitor's and the assistant's, with what the visitor never sees written out (the
 * error's code and id, the tokens used). Text shows as written (no markdown: the owner
 * reads what the model said, not how it looked); tool calls are the chat's own blocks
 * (components/tool-card), reasoning folds away. Images are links to the server's copy.
 *
 * Erasing the visitor asks first, in place, naming the visitor: everything of theirs
 * goes, not only this conversation.
 *
 * Where the server lets a person answer, the conversation is live (conversation-live.ts):
 * what its tabs get is added as it comes, to a `role="log"` that announces each finished
 * message once; the answer being written shows under it, outside the log, so that it is
 * not read out word by word. The handoff's line is on top and the reply box at the end
 * (handoff-panel.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { ChatMessage, ImageRef, Part, TurnView } from '@aalis/protocol/client';
import { renderToolCall } from '../components/tool-card/tool-call-block.js';
import type { Strings } from '../i18n/strings.js';
import { onEscape } from '../shared/escape.js';
import { closeIcon, thumbDownIcon, thumbUpIcon } from '../shared/icons.js';
import type { ArchivedConversation } from './console-api.js';
import { formatCount, formatDateTime } from './days.js';
import { renderHandoffState, renderReplyBox, type HandoffPanel } from './handoff-panel.js';
import type { OpenConversation } from './open-conversation.js';

export interface TranscriptHandlers {
  close(): void;
  askErase(): void;
  cancelErase(): void;
  confirmErase(): void;
}

/** `strings` are the chat's, for its tool blocks. `imageUrl` is where an attached image is served. */
export interface TranscriptContext {
  strings: Strings;
  imageUrl(id: string): string;
}

/** `panel`: where a person may answer, the live view and the reply box. */
export function renderTranscript(
  open: OpenConversation,
  context: TranscriptContext,
  on: TranscriptHandlers,
  panel?: HandoffPanel,
): TemplateResult {
  const { conversation } = open;
  return html`<section
    class="transcript"
    part="transcript"
    aria-labelledby="transcript-heading"
    aria-busy=${open.loading ? 'true' : 'false'}
  >
    <header class="transcript-head">
      <h2 id="transcript-heading" tabindex="-1">Conversation</h2>
      <button type="button" class="icon-button" aria-label="Close the conversation" @click=${on.close}>
        ${closeIcon}
      </button>
    </header>
    ${open.loading ? html`<p class="note" role="status">Loading…</p>` : nothing}
    ${open.error ? html`<p class="error" role="alert">${open.error}</p>` : nothing}
    ${conversation ? renderConversation(conversation, open, context, on, panel) : nothing}
  </section>`;
}

function renderConversation(
  conversation: ArchivedConversation,
  open: OpenConversation,
  context: TranscriptContext,
  on: TranscriptHandlers,
  panel: HandoffPanel | undefined,
): TemplateResult {
  const { visitorId } = conversation;
  const messages = panel ? panel.live.messages(conversation.messages) : conversation.messages;
  const turn = panel?.live.view.turn;
  return html`${panel ? renderHandoffState(panel) : nothing}
    <dl class="facts">
      <dt>Visitor</dt>
      <dd class="visitor-id">${visitorId ?? 'unknown (from before visitors were kept)'}</dd>
      <dt>Started</dt>
      <dd>${formatDateTime(conversation.startedAt)}</dd>
      <dt>Session</dt>
      <dd class="session-id">${conversation.sessionId}</dd>
    </dl>
    ${
      visitorId
        ? open.erase
          ? renderEraseQuestion(visitorId, open.erase === 'erasing', on)
          : html`<div class="transcript-actions">
              <button type="button" class="danger erase" @click=${on.askErase}>Erase this visitor</button>
            </div>`
        : nothing
    }
    ${messages.length || turn ? nothing : html`<p class="note">No message in this conversation.</p>`}
    <div class="log" role="log" aria-live="polite" aria-relevant="additions" aria-label="Messages">
      <ol class="messages">
        ${repeat(
          messages,
          (message) => message.id,
          (message) => renderMessage(message, context),
        )}
      </ol>
    </div>
    ${turn ? renderWriting(turn, context) : nothing} ${panel ? renderReplyBox(panel) : nothing}`;
}

/** The model's answer while it is written: what came so far, not yet a message. */
function renderWriting(turn: TurnView, context: TranscriptContext): TemplateResult {
  return html`<div class="message assistant writing" aria-busy="true">
    <p class="meta"><span class="who">Assistant</span><span class="badge">writing…</span></p>
    <div class="bubble assistant">
      ${turn.parts.length ? turn.parts.map((part) => renderPart(part, context.strings)) : html`<p class="text">…</p>`}
    </div>
  </div>`;
}

function renderEraseQuestion(visitorId: string, erasing: boolean, on: TranscriptHandlers): TemplateResult {
  return html`<div
    class="confirm"
    role="group"
    aria-labelledby="erase-question"
    @keydown=${onEscape(on.cancelErase)}
  >
    <p id="erase-question">
      Erase everything of visitor <code>${visitorId}</code>? All their conversations, ratings and images are
      deleted for good.
    </p>
    <button type="button" class="danger confirm-erase" ?disabled=${erasing} @click=${on.confirmErase}>
      ${erasing ? 'Erasing…' : 'Erase'}
    </button>
    <button type="button" class="cancel-erase" ?disabled=${erasing} @click=${on.cancelErase}>Cancel</button>
  </div>`;
}

/** Who wrote a message: the visitor, the model, or a person who took the conversation over. */
function authorOf(message: ChatMessage): string {
  if (message.role === 'user') return 'Visitor';
  if (message.role === 'operator') return message.author ? `Operator (${message.author})` : 'Operator';
  return 'Assistant';
}

function renderMessage(message: ChatMessage, context: TranscriptContext): TemplateResult {
  return html`<li class="message ${message.role}" data-id=${message.id}>
    <p class="meta">
      <span class="who">${authorOf(message)}</span>
      <time datetime=${new Date(message.createdAt).toISOString()}>${formatDateTime(message.createdAt)}</time>
      ${message.replaces ? html`<span class="badge">new version of an earlier question</span>` : nothing}
      ${message.toOperator ? html`<span class="badge">to the operator</span>` : nothing}
    </p>
    <div class="bubble ${message.role}">
      ${message.parts.map((part) => renderPart(part, context.strings))}
      ${message.images?.length ? renderImages(message.images, context) : nothing}
    </div>
    ${outcome(message)} ${renderFeedback(message)}
    ${
      message.usage
        ? html`<p class="usage">
            ${formatCount(message.usage.promptTokens)} tokens in ·
            ${formatCount(message.usage.completionTokens)} out
          </p>`
        : nothing
    }
  </li>`;
}

function renderPart(part: Part, strings: Strings): TemplateResult {
  switch (part.type) {
    case 'text':
      return html`<p class="text">${part.text}</p>`;
    case 'reasoning':
      return html`<details class="reasoning">
        <summary>Reasoning</summary>
        <p class="text">${part.text}</p>
      </details>`;
    case 'tool_call':
      return renderToolCall(part, strings);
  }
}

function renderImages(images: readonly ImageRef[], context: TranscriptContext): TemplateResult {
  return html`<ul class="images" aria-label="Attached images">
    ${images.map(
      (image, i) =>
        html`<li>
          <a href=${context.imageUrl(image.id)} target="_blank" rel="noopener noreferrer">
            Image ${i + 1} (${image.mimeType.slice('image/'.length)}, ${image.width}×${image.height},
            ${Math.ceil(image.bytes / 1024)} KB)
          </a>
        </li>`,
    )}
  </ul>`;
}

/** How an answer ended when it did not complete: the error as the log knows it. */
function outcome(message: ChatMessage): unknown {
  const { error, status } = message;
  if (error) {
    return html`<p class="error-note">
      ${status === 'aborted' ? 'Stopped' : 'Failed'}: ${error.message}
      (<code>${error.code}</code>${error.errorId ? html`, error id <code>${error.errorId}</code>` : nothing})
    </p>`;
  }
  if (status === 'aborted') return html`<p class="error-note">Stopped before its end.</p>`;
  if (status === 'error') return html`<p class="error-note">Failed, without a reason kept.</p>`;
  return nothing;
}

function renderFeedback(message: ChatMessage): unknown {
  const feedback = message.feedback;
  if (!feedback) return nothing;
  const down = feedback.rating === 'down';
  return html`<p class="feedback" data-rating=${feedback.rating}>
    <span class="rating" data-rating=${feedback.rating} aria-hidden="true">
      ${down ? thumbDownIcon : thumbUpIcon}
    </span>
    Rated
    ${down ? 'down' : 'up'}${
      feedback.comment ? html`: <q class="comment">${feedback.comment}</q>` : ', without a comment'
    }
  </p>`;
}
