/**
 * What the lazily loaded elicitation element borrows from the chat's own copy of Lit. The
 * part imports nothing: an import of the script-tag file from it would load the whole
 * widget a second time on a page that loads that file under another address
 * (`aalis-chat.js?v=2`), and a second Lit with it. So the file that loads it hands it these.
 */
import type { CSSResultGroup, LitElement, css, html, nothing } from 'lit';

export interface LitKit {
  LitElement: typeof LitElement;
  html: typeof html;
  css: typeof css;
  nothing: typeof nothing;
  /** The chat's theme tokens and target sizes: every element of the widget has them on its `:host`. */
  styles: CSSResultGroup;
}
