/**
 * A view the script-tag file does not carry: what most chats never show (approval cards, the
 * handoff's button and line, the visitor's conversation list, the versions' switcher and
 * edit form, the comment after a thumb) is a file of its own, loaded the first time a chat
 * shows it, once a page. Until then nothing shows in its place, and the chat renders again
 * once it has come.
 *
 * The file imports nothing at run time: an import of anything the script-tag file holds
 * would make it import that file, which a page that loads the script under another address
 * (`aalis-chat.js?v=2`) would load a second time, a second Lit with it. So it borrows the
 * chat's Lit and the few helpers it shares with the script (`ViewKit`), and gives back its
 * rules, which join the chat's stylesheet the first time it renders in a chat.
 */
import {
  adoptStyles,
  css,
  html,
  nothing,
  supportsAdoptingStyleSheets,
  type CSSResult,
  type ReactiveControllerHost,
} from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { Limits } from '@aalis/protocol/client';
import { accentButton } from './control-styles.js';
import { onEscape } from './escape.js';
import { pretty } from './format.js';
import { closeIcon, editIcon, toolIcon } from './icons.js';
import { enterSubmits } from './keys.js';

/** What the views borrow from the script-tag file: its Lit, and the helpers they share with it. */
const kit = {
  html,
  nothing,
  css,
  repeat,
  Limits,
  accentButton,
  onEscape,
  pretty,
  closeIcon,
  editIcon,
  toolIcon,
  enterSubmits,
};

export type ViewKit = typeof kit;

/** What a view's file makes of the kit: its rules, and its render functions. */
export interface View {
  readonly styles: CSSResult;
}

/** The chat a view renders in: its rules go into the chat's shadow root. */
export interface ViewHost extends ReactiveControllerHost {
  readonly renderRoot: HTMLElement | DocumentFragment;
}

export class LazyView<V extends View> {
  #view: V | undefined;
  #loading: Promise<V | undefined> | undefined;
  /** The shadow roots that have its rules. */
  readonly #styled = new WeakSet<object>();

  /**
   * @param file Imports the view's file: `() => import('./x.js').then((file) => file.x)`, a
   *   relative import, so that the file is fetched from beside the script, wherever that was.
   */
  constructor(private readonly file: () => Promise<(kit: ViewKit) => V>) {}

  /** Whether its file has come: for a render that is skipped while its inputs stay the same (`guard`). */
  get ready(): boolean {
    return !!this.#view;
  }

  /** Starts loading the view's file, once; resolves to the view, or undefined when it could not load. */
  load(): Promise<V | undefined> {
    // Not loaded (offline, not served): a render some seconds later tries again, not every
    // render of a streaming answer.
    return (this.#loading ??= this.file().then(
      (make) => (this.#view = make(kit)),
      () => void setTimeout(() => (this.#loading = undefined), 10_000),
    ));
  }

  /** The view, with its rules in `host`'s; undefined until its file has come, when `host` renders again. */
  in(host: ViewHost): V | undefined {
    const view = this.#view;
    if (!view) {
      void this.load().then((loaded) => loaded && host.requestUpdate());
      return undefined;
    }
    const root = host.renderRoot as ShadowRoot;
    if (!this.#styled.has(root)) {
      this.#styled.add(root);
      // After the chat's own rules, the way Lit adds those: an adopted sheet, or where a
      // browser adopts none (Firefox before 101), a <style> element.
      adoptStyles(
        root,
        supportsAdoptingStyleSheets ? [...root.adoptedStyleSheets, view.styles] : [view.styles],
      );
    }
    return view;
  }

  /**
   * For what moves the focus into the view: calls `then` at once when its file is there, else
   * once it has come, `host` about to render with it; never when it could not load.
   */
  whenLoaded(host: ViewHost, then: () => void): void {
    if (this.#view) return then();
    void this.load().then((view) => {
      if (!view) return;
      host.requestUpdate();
      then();
    });
  }
}
