/** Registers the widget's elements, once: loading the script twice on a page must not throw. */
import { AalisChat } from './aalis-chat.js';
import { AalisToolProgress } from './components/tool-card/tool-card.js';
import { AalisTurnStatus } from './components/turn-status/turn-status.js';

export function define(): void {
  if (!customElements.get('aalis-tool-progress'))
    customElements.define('aalis-tool-progress', AalisToolProgress);
  if (!customElements.get('aalis-turn-status')) customElements.define('aalis-turn-status', AalisTurnStatus);
  if (!customElements.get('aalis-chat')) customElements.define('aalis-chat', AalisChat);
}

declare global {
  interface HTMLElementTagNameMap {
    'aalis-chat': AalisChat;
    'aalis-tool-progress': AalisToolProgress;
    'aalis-turn-status': AalisTurnStatus;
  }
}
