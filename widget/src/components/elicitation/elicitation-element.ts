/**
 * `<aalis-elicitation>`: one MCP server's request for the visitor's input, inside the card
 * of the tool call that asked (PROTOCOL.md, `elicitation`). It says who asks (the MCP
 * server's name) above the server's message, so a site's form is never taken for the
 * model's words. A form (`form` mode) has a labelled control per field, checked here as
 * the server checks it, with Submit and Decline; a page (`url` mode) shows its host in
 * bold and its address, and opens only when the visitor presses Open.
 *
 * This file is loaded the first time a request shows (elicitations.ts), and borrows the
 * chat's Lit (lit-kit.ts): it imports nothing at run time.
 */
import type { PropertyDeclarations, PropertyValues, TemplateResult } from 'lit';
import type { Elicitation, ElicitationAction, ErrorFrame } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import type { Answered, ElicitationContent, ElicitationHost } from './elicitation-requests.js';
import { elicitationStyles } from './elicitation.styles.js';
import { wordsFor, type ElicitationWords } from './elicitation-words.js';
import { checkField, checkForm, parseUrl, type Raw } from './form-check.js';
import { controlId, renderFields } from './form-fields.js';
import { fieldsOf, type Field } from './form-schema.js';
import type { LitKit } from './lit-kit.js';

const MINUTE = 60_000;

/** The page of a `url` request, when it is one the widget opens: http or https only. */
function webPage(url: string | undefined): URL | undefined {
  const page = parseUrl(url ?? '');
  return page?.protocol === 'https:' || page?.protocol === 'http:' ? page : undefined;
}

/** Defines the element, once. */
export function defineElicitation(kit: LitKit): void {
  if (!customElements.get('aalis-elicitation')) customElements.define('aalis-elicitation', elementOf(kit));
}

function elementOf(kit: LitKit) {
  const { LitElement, html, nothing } = kit;

  return class AalisElicitation extends LitElement {
    static override properties: PropertyDeclarations = {
      elicitation: { attribute: false },
      host: { attribute: false },
      strings: { attribute: false },
      answered: { attribute: false },
      offset: { attribute: false },
    };
    static override styles = [kit.styles, elicitationStyles(kit.css)];

    declare elicitation: Elicitation;
    /** The chat it shows in (its language, and where answers go), and what follows an answer. */
    declare host: ElicitationHost;
    /** The chat's words (set apart from `host`: a new language renders again). */
    declare strings: Strings;
    /** This tab's answer, until it settles: sent, or refused (elicitation-requests.ts). */
    declare answered: Answered | undefined;
    /** `localNow - serverTime`: the request expires on the server's clock. */
    declare offset: number;

    /** The form's fields, read again only when another schema comes. */
    #fields: Field[] = [];
    #schema: Elicitation['requestedSchema'];
    /** What is wrong with each field, after a Submit. */
    #problems = new Map<string, string>();
    /** A Submit found problems: the focus goes to the first once they show. */
    #focusProblem = false;
    #timer: ReturnType<typeof setTimeout> | undefined;

    /**
     * Sent, and not settled: the buttons wait. A request no longer open (`not_pending`)
     * cannot be answered again; an invalid answer may be corrected.
     */
    get sent(): boolean {
      return this.answered === true || this.refusal?.code === 'not_pending';
    }

    /** The server's `error` for this tab's last answer. */
    get refusal(): ErrorFrame | undefined {
      return this.answered === true ? undefined : this.answered;
    }

    get #words(): ElicitationWords {
      return wordsFor(this.host.chat.locale || navigator.language, this.strings.elicitation);
    }

    /**
     * Why the last answer was refused: an invalid one in the server's words, which say what
     * is wrong; else in the chat's words for the code, when it has them.
     */
    get #refusalText(): string | undefined {
      const { refusal, strings } = this;
      if (!refusal) return undefined;
      const known = refusal.code !== 'invalid_answer' && Object.hasOwn(strings.errors, refusal.code);
      return known ? strings.errors[refusal.code] : refusal.message;
    }

    protected override willUpdate(): void {
      const schema = this.elicitation.requestedSchema;
      if (schema === this.#schema) return;
      this.#schema = schema;
      this.#fields = fieldsOf(schema);
      this.#problems = new Map();
    }

    protected override render(): TemplateResult {
      const { elicitation: asked, strings } = this;
      const words = this.#words;
      return html`<div class="card" role="group" aria-labelledby="who" aria-describedby="message">
        <div class="head">
          <span class="who" id="who">${strings.elicitationAsk(asked.serverName)}</span>
          ${
            // An opened page no longer expires: the visitor is on it.
            asked.opened
              ? nothing
              : html`<span class="expires">${strings.expiresIn(this.#minutesLeft())}</span>`
          }
        </div>
        <p class="message" id="message">${asked.message}</p>
        ${asked.mode === 'url' ? this.#renderPage(words) : this.#renderForm(words)}
        ${this.refusal ? html`<p class="problem" role="alert">${this.#refusalText}</p>` : nothing}
      </div>`;
    }

    #renderForm(words: ElicitationWords): TemplateResult {
      const { sent } = this;
      // novalidate: the checks are this element's, in the chat's language and tied to each
      // field, not the browser's bubbles. Enter in a box submits, as in any form.
      return html`<form part="elicitation-form" novalidate @submit=${this.#submit} @change=${this.#recheck}>
        ${renderFields(kit, this.#fields, { words, problems: this.#problems })}
        <div class="actions">
          <button
            type="submit"
            class="submit"
            part="elicitation-submit"
            ?disabled=${sent}
            aria-disabled=${sent ? 'true' : 'false'}
          >
            ${words.submit}
          </button>
          ${this.#declineButton(words)}
        </div>
      </form>`;
    }

    #renderPage(words: ElicitationWords): TemplateResult {
      const { elicitation: asked } = this;
      // Opened: the answer is settled, and Open stays to open the page again.
      const sent = this.sent && !asked.opened;
      const page = webPage(asked.url);
      const status = asked.completed
        ? words.done
        : asked.opened && page
          ? words.waiting(page.host)
          : undefined;
      return html`<div class="page">
          ${page ? html`<strong class="host">${page.host}</strong>` : nothing}
          <span class="url">${asked.url ?? ''}</span>
        </div>
        ${page ? nothing : html`<p class="note">${words.cannotOpen}</p>`}
        ${status ? html`<p class="status" role="status">${status}</p>` : nothing}
        ${
          asked.completed
            ? nothing
            : html`<div class="actions">
                ${
                  // Once opened, Open opens it again (a closed window), and sends nothing.
                  page
                    ? html`<button
                        type="button"
                        class="open"
                        part="elicitation-open"
                        ?disabled=${sent}
                        aria-disabled=${sent ? 'true' : 'false'}
                        @click=${this.#open}
                      >
                        ${words.open}
                      </button>`
                    : nothing
                }
                ${asked.opened ? nothing : this.#declineButton(words)}
              </div>`
        }`;
    }

    #declineButton(words: ElicitationWords): TemplateResult {
      return html`<button
        type="button"
        class="decline"
        part="elicitation-decline"
        ?disabled=${this.sent}
        aria-disabled=${this.sent ? 'true' : 'false'}
        @click=${this.#decline}
      >
        ${words.decline}
      </button>`;
    }

    readonly #submit = (event: SubmitEvent): void => {
      event.preventDefault();
      if (this.sent) return;
      const { content, problems } = checkForm(this.#fields, this.#read, this.#words);
      this.#problems = problems;
      this.#focusProblem = problems.size > 0;
      this.requestUpdate();
      if (!problems.size) this.#answer('accept', content);
    };

    /** A field said to be wrong is checked again as the visitor changes it: its message goes once fixed. */
    readonly #recheck = (event: Event): void => {
      const index = Number(/^f(\d+)/.exec((event.target as Element).id)?.[1]);
      const field = this.#fields[index];
      if (!field || !this.#problems.has(field.name)) return;
      const { problem } = checkField(field, this.#read(field, index), this.#words);
      const problems = new Map(this.#problems);
      if (problem === undefined) problems.delete(field.name);
      else problems.set(field.name, problem);
      this.#problems = problems;
      this.requestUpdate();
    };

    readonly #decline = (): void => {
      this.#answer('decline');
    };

    /** Sends this card's answer; once it went, the chat moves the focus (`answered`). */
    #answer(action: ElicitationAction, content?: ElicitationContent): boolean {
      const sent = this.host.chat.answerElicitation(this.elicitation.elicitationId, action, content);
      if (sent) this.host.answered();
      return sent;
    }

    /**
     * The page opens on this click only, never by itself, in a window that cannot reach
     * the chat's page (`noopener`) nor learn its address (`noreferrer`). The accept goes
     * first: a page whose answer could not be sent stays closed.
     */
    readonly #open = (): void => {
      const { url, opened } = this.elicitation;
      if (!webPage(url)) return;
      if (opened || this.#answer('accept')) window.open(url, '_blank', 'noopener,noreferrer');
    };

    /** A field's value as the browser holds it, by its id (form-fields.ts). */
    readonly #read = (field: Field, index: number): Raw => {
      const root = this.renderRoot as ShadowRoot;
      if (field.kind === 'multi') {
        return field.options
          .filter((_, choice) => root.querySelector<HTMLInputElement>(`#f${index}-${choice}`)?.checked)
          .map((o) => o.value);
      }
      const control = root.getElementById(`f${index}`) as HTMLInputElement | HTMLSelectElement | null;
      if (!control) return { text: '', bad: false };
      if (field.kind === 'boolean') return (control as HTMLInputElement).checked;
      return { text: control.value, bad: control.validity.badInput };
    };

    /** Whole minutes left to answer, on the server's clock, never below 0. */
    #minutesLeft(): number {
      return Math.max(
        0,
        Math.floor((this.elicitation.expiresAt - (Date.now() - (this.offset ?? 0))) / MINUTE),
      );
    }

    protected override updated(changed: PropertyValues): void {
      super.updated(changed);
      if (this.#focusProblem) {
        this.#focusProblem = false;
        const index = this.#fields.findIndex((f) => this.#problems.has(f.name));
        const field = this.#fields[index];
        if (field) this.renderRoot.querySelector<HTMLElement>(`#${controlId(field, index)}`)?.focus();
      }
      // The minutes left change on their own: render again then, not before.
      clearTimeout(this.#timer);
      const left = this.elicitation.expiresAt - (Date.now() - (this.offset ?? 0));
      if (left > 0 && !this.elicitation.opened)
        this.#timer = setTimeout(() => this.requestUpdate(), (left % MINUTE || MINUTE) + 50);
    }

    override disconnectedCallback(): void {
      super.disconnectedCallback();
      clearTimeout(this.#timer);
    }
  };
}
