/**
 * The owner's console, `<aalis-console>`, defined on import: the entry of
 * dist/aalis-console.js, the script the server's `/admin` page loads. Apart from the
 * chat's entry (index.ts), so a page with the chat never downloads the console.
 */
import { AalisConsole } from './console/aalis-console.js';

// Loading the script twice on a page must not throw.
if (!customElements.get('aalis-console')) customElements.define('aalis-console', AalisConsole);

export { AalisConsole };

declare global {
  interface HTMLElementTagNameMap {
    'aalis-console': AalisConsole;
  }
}
