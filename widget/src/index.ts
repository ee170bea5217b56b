/** @aalis/widget: `<aalis-chat>`, defined on import. */
import { define } from './define.js';

define();

export { AalisChat } from './aalis-chat.js';
export { AalisToolProgress, STALL_MS } from './components/tool-card/tool-card.js';
export { AalisTurnStatus } from './components/turn-status/turn-status.js';
export { define } from './define.js';
export * from './shared/events.js';
export { registerLocale, type Strings } from './i18n/strings.js';
export type {
  AalisElicitationEvent,
  ElicitationContent,
} from './components/elicitation/elicitation-requests.js';
export type { ConnectionState, SocketFactory, SocketLike } from './controllers/connection.js';
