/**
 * How the conversation renders, as a Lit ReactiveController: the log with its history,
 * greeting and running turn (components/transcript/), and the caches that keep a long
 * conversation cheap. A finished message is rendered once (it never changes) until the
 * locale changes or markdown arrives; the history is re-diffed only when one of its
 * inputs changes, never on a streaming frame.
 */
import type { ReactiveController } from 'lit';
import { nothing, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { approvalList, type ChatMessage, type ToolCallPart, type TurnView } from '@aalis/protocol/client';
import type { Decide } from '../components/approval/approval-cards.js';
import { approvalCards } from '../components/approval/approvals.js';
import { renderGreeting, templateStarters, type Starter } from '../components/greeting/greeting.js';
import { feedbackForm, renderMessageActions } from '../components/message-actions/message-actions.js';
import {
  renderAssistantMessage,
  renderOperatorMessage,
  renderTurn,
  renderUserMessage,
} from '../components/message/message.js';
import type { PartContext } from '../components/message/parts.js';
import { renderHistory } from '../components/transcript/history.js';
import { renderTranscript, type TranscriptHandlers } from '../components/transcript/transcript.js';
import { versionsView } from '../components/versions/versions.js';
import type { Strings } from '../i18n/strings.js';
import { loadLexer } from '../markdown/lexer.js';
import type { RenderOptions } from '../markdown/render.js';
import type { ViewHost } from '../shared/lazy-view.js';
import type { Composer } from './composer.js';
import type { Conversation } from './conversation.js';
import type { MessageActions } from './message-actions.js';

export interface TranscriptHost extends ViewHost, HTMLElement {
  readonly strings: Strings;
  readonly locale: string;
  readonly theme: 'light' | 'dark' | 'auto';
  readonly welcome: string;
  readonly starters: Starter[] | undefined;
}

/** The other concerns the transcript shows and acts through. */
export interface TranscriptParts {
  conversation: Conversation;
  actions: MessageActions;
  composer: Composer;
  /** Where an attached image is served (the server's `GET /images/<id>`). */
  imageUrl(id: string): string;
  decide: Decide;
  /** Moves the focus to the text box once rendered. */
  focus(): void;
  /**
   * What an MCP server asks the visitor during the call (forms, pages to visit), in its
   * card; `nothing` for none.
   */
  elicitationsIn(part: ToolCallPart): unknown;
  /** The call's MCP App, in its card; `nothing` for none. */
  appIn(part: ToolCallPart): unknown;
}

export class Transcript implements ReactiveController {
  /** marked has loaded (lexer.ts): what showed as plain text renders as markdown. */
  #markdownReady = false;
  /** Finished messages render once: they never change. */
  #rendered = new WeakMap<ChatMessage, TemplateResult>();
  #locale: string | undefined;

  readonly #host: TranscriptHost;
  readonly #parts: TranscriptParts;

  constructor(host: TranscriptHost, parts: TranscriptParts) {
    this.#host = host;
    this.#parts = parts;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.#markdownReady) return;
    loadLexer().then(
      () => {
        this.#rendered = new WeakMap();
        this.#parts.conversation.caches = new Map();
        this.#markdownReady = true;
        this.#host.requestUpdate();
      },
      // Not served next to this file: the text stays plain, everything else works.
      () => {},
    );
  }

  hostUpdate(): void {
    // The words of every message follow the locale.
    if (this.#host.locale === this.#locale) return;
    this.#locale = this.#host.locale;
    this.#rendered = new WeakMap();
  }

  render(stuck: boolean, on: TranscriptHandlers): TemplateResult {
    const { conversation, actions } = this.#parts;
    const { strings } = this.#host;
    const { turn, messages, handoff } = conversation.view;
    const idle = turn === null;
    const askable = idle && handoff?.state !== 'active';
    const { shownPlaces, chosen } = conversation;
    const history = messages.length
      ? // The history changes only when a turn ends: not re-diffed on every frame.
        guard(
          [
            messages,
            this.#host.locale,
            this.#markdownReady,
            actions.commenting,
            actions.copied,
            chosen,
            actions.editing,
            idle,
            askable,
            shownPlaces,
            // The views in files of their own it may wait for: rendered again once they come.
            versionsView.ready,
            feedbackForm.ready,
          ],
          () =>
            renderHistory(
              { strings, messages, shownPlaces, chosen, editing: actions.editing, idle, askable },
              this.#historyHandlers,
            ),
        )
      : nothing;
    const running = turn
      ? renderTurn(
          turn,
          this.#context(true, conversation.reasoning.running),
          turn.approvals.size ? this.#approvals(turn) : nothing,
        )
      : nothing;
    const { hasMore, errors } = conversation;
    const greeting = this.#renderGreeting();
    return renderTranscript({ strings, hasMore, history, greeting, turn: running, errors, stuck }, on);
  }

  readonly #historyHandlers = {
    message: (message: ChatMessage, regenerable: boolean) => this.#renderMessage(message, regenerable),
    startEdit: (messageId: string) => this.#parts.actions.startEdit(messageId),
    edit: {
      save: (text: string) => this.#parts.actions.edit.save(text),
      cancel: () => this.#parts.actions.edit.cancel(),
    },
    choose: (place: string, version: number) => this.#parts.conversation.choose(place, version),
    versions: () => versionsView.in(this.#host),
  };

  /** The cards of the calls waiting for approval; none until their file has come (../components/approval/). */
  #approvals(turn: TurnView): unknown {
    const { conversation, decide } = this.#parts;
    const state = {
      strings: this.#host.strings,
      serverNow: conversation.serverNow(),
      decided: conversation.decided,
    };
    return approvalCards.in(this.#host)?.render(approvalList(turn), state, decide) ?? nothing;
  }

  /** Only while the conversation is empty: nothing said yet, none older, no turn. */
  #renderGreeting(): unknown {
    const { conversation } = this.#parts;
    const { messages, turn } = conversation.view;
    if (messages.length || turn || conversation.hasMore) return nothing;
    const fromPage = this.#host.starters ?? templateStarters(this.#host);
    const fromServer = conversation.greeting;
    const starters = fromPage.length
      ? fromPage
      : (fromServer.starters ?? []).map((text) => ({ label: text, text }));
    const { strings } = this.#host;
    return renderGreeting(
      this.#host.welcome || fromServer.welcome || '',
      starters,
      { strings, markdown: this.#markdownIn(strings) },
      this.#sendStarter,
    );
  }

  /**
   * A starter goes like a typed message; when it cannot go now, it waits in the text box.
   * Either way the focus goes to the text box: the clicked button is about to go.
   */
  readonly #sendStarter = (text: string) => {
    const { composer } = this.#parts;
    if (!composer.send(text, true) && !composer.draft.trim()) composer.show({ draft: text });
    this.#parts.focus();
  };

  #renderMessage(message: ChatMessage, regenerable: boolean): unknown {
    const { strings } = this.#host;
    let rendered = this.#rendered.get(message);
    if (!rendered) {
      rendered =
        message.role === 'user'
          ? renderUserMessage(message, strings, this.#parts.imageUrl)
          : message.role === 'operator'
            ? renderOperatorMessage(message, strings)
            : renderAssistantMessage(
                message,
                this.#context(false, this.#parts.conversation.reasoning.of(message.id)),
              );
      this.#rendered.set(message, rendered);
    }
    // Only the model's answers are rated and asked again: not a question, nor a person's reply.
    if (message.role !== 'assistant') return rendered;
    // The actions change without the answer (a form opened, "Copied"): rendered apart.
    const { commenting, copied, actions } = this.#parts.actions;
    const form = commenting === message.id ? feedbackForm.in(this.#host) : undefined;
    return [
      rendered,
      renderMessageActions(message, { strings, commenting, copied, regenerable, form }, actions),
    ];
  }

  /** The markdown's options, its words in the chat's language. */
  #markdownIn(strings: Strings): RenderOptions {
    return { ...this.#markdown, copyLabel: strings.copy, tableLabel: strings.wideTable };
  }

  readonly #markdown: RenderOptions = {
    copyLabel: '',
    tableLabel: '',
    onCopy: (code, button) => {
      void navigator.clipboard?.writeText(code).then(() => {
        button.textContent = this.#host.strings.copied;
        setTimeout(() => (button.textContent = this.#host.strings.copy), 1500);
      });
    },
  };

  /**
   * What shows in a tool's card beside the call: `nothing` when neither its forms nor its
   * app render anything, so the card opens only for something to see. One closure for
   * every render.
   */
  readonly #toolExtras = (part: ToolCallPart): unknown => {
    const forms = this.#parts.elicitationsIn(part);
    const app = this.#parts.appIn(part);
    return forms === nothing && app === nothing ? nothing : [forms, app];
  };

  #context(streaming: boolean, reasoningMs: ReadonlyMap<number, number> | undefined): PartContext {
    const { strings, theme } = this.#host;
    const { conversation } = this.#parts;
    return {
      strings,
      theme,
      offset: conversation.offset,
      markdown: this.#markdownIn(strings),
      streaming,
      reasoningMs,
      toolExtras: this.#toolExtras,
      ...(streaming ? { caches: conversation.caches } : {}),
    };
  }
}
