/**
 * The visitor's conversations, in place of the transcript: open one, start a new one,
 * rename one (Enter saves, Escape leaves it), delete one (asked twice). The list is the
 * server's (`sessions` frames): only the visitor's own conversations are ever in it.
 *
 * A file of its own (`aalis-chat-conversations-view.js`), loaded when a visitor first opens
 * the list (conversations.ts), which waits for the server's list anyway. It borrows the
 * chat's Lit and helpers (../../shared/lazy-view.ts): it imports nothing at run time.
 */
import type { TemplateResult } from 'lit';
import type { SessionSummary } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import type { ViewKit } from '../../shared/lazy-view.js';
import { conversationsViewStyles } from './conversations-view.styles.js';

export interface ConversationsState {
  strings: Strings;
  /** Null until the server's list has arrived. */
  sessions: readonly SessionSummary[] | null;
  current: string | null;
  /** The conversation being renamed, and the one whose delete asks "sure?". */
  renaming: string | undefined;
  confirming: string | undefined;
  locale: string;
}

export interface ConversationHandlers {
  back(): void;
  fresh(): void;
  open(id: string): void;
  rename(id: string | undefined): void;
  saveName(id: string, title: string): void;
  remove(id: string): void;
}

/** "5 minutes ago", in the chat's language. */
function ago(at: number, locale: string): string {
  const seconds = Math.round((at - Date.now()) / 1000);
  const [value, unit] =
    Math.abs(seconds) < 60
      ? [seconds, 'second' as const]
      : Math.abs(seconds) < 3600
        ? [Math.round(seconds / 60), 'minute' as const]
        : Math.abs(seconds) < 86_400
          ? [Math.round(seconds / 3600), 'hour' as const]
          : [Math.round(seconds / 86_400), 'day' as const];
  try {
    return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(value, unit);
  } catch {
    return new Date(at).toLocaleString();
  }
}

export function conversationsView({
  html,
  css,
  Limits,
  onEscape,
  closeIcon,
  editIcon,
  accentButton,
}: ViewKit) {
  function renameForm(session: SessionSummary, strings: Strings, on: ConversationHandlers): TemplateResult {
    const submit = (event: Event) => {
      event.preventDefault();
      const input = (event.currentTarget as HTMLFormElement).elements.namedItem('title') as HTMLInputElement;
      if (input.value.trim()) on.saveName(session.id, input.value.trim());
    };
    return html`<form class="rename-form" @submit=${submit} @keydown=${onEscape(() => on.rename(undefined))}>
      <input
        name="title"
        maxlength=${Limits.sessionTitle}
        aria-label=${strings.rename(session.title)}
        .value=${session.title}
      />
      <button type="submit">${strings.save}</button>
    </form>`;
  }

  function render(state: ConversationsState, on: ConversationHandlers): TemplateResult {
    const { strings, sessions, current, renaming, confirming } = state;
    return html`<div class="conversations" part="conversations">
      <div class="conversations-head">
        <button type="button" class="action" @click=${on.back}>‹ ${strings.back}</button>
        <button type="button" class="new-conversation" @click=${on.fresh}>${strings.newConversation}</button>
      </div>
      ${
        sessions === null
          ? html`<p class="note">${strings.connecting}</p>`
          : sessions.length === 0
            ? html`<p class="note">${strings.noConversations}</p>`
            : html`<ul aria-label=${strings.conversations}>
                ${sessions.map((session) =>
                  renaming === session.id
                    ? html`<li>${renameForm(session, strings, on)}</li>`
                    : html`<li>
                        <button
                          type="button"
                          class="open-conversation"
                          aria-current=${session.id === current ? 'true' : 'false'}
                          @click=${() => on.open(session.id)}
                        >
                          <span class="conversation-title">${session.title || strings.untitled}</span>
                          <span class="conversation-time">${ago(session.lastActivity, state.locale)}</span>
                        </button>
                        <button
                          type="button"
                          class="action rename"
                          aria-label=${strings.rename(session.title || strings.untitled)}
                          @click=${() => on.rename(session.id)}
                        >
                          ${editIcon}
                        </button>
                        <button
                          type="button"
                          class="action delete ${confirming === session.id ? 'confirm' : ''}"
                          aria-label=${
                            confirming === session.id
                              ? strings.confirmDelete
                              : strings.deleteConversation(session.title || strings.untitled)
                          }
                          @click=${() => on.remove(session.id)}
                        >
                          ${confirming === session.id ? strings.confirmDelete : closeIcon}
                        </button>
                      </li>`,
                )}
              </ul>`
      }
    </div>`;
  }

  return { styles: conversationsViewStyles(css, accentButton), render };
}

export type ConversationsView = ReturnType<typeof conversationsView>;
