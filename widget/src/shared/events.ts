/** The events `<aalis-chat>` dispatches: typed, bubbling, composed (they leave the shadow root). */
import type { ChatMessage, ToolApproval } from '@aalis/protocol/client';
import type { ConnectionState } from './connection-state.js';

const init = { bubbles: true, composed: true } as const;

/** The user sent a message (from the composer or `send()`). */
export class AalisSendEvent extends CustomEvent<{ text: string }> {
  constructor(text: string) {
    super('aalis-send', { ...init, detail: { text } });
  }
}

/** A turn ended: the final assistant message as stored. */
export class AalisMessageEvent extends CustomEvent<{ message: ChatMessage }> {
  constructor(message: ChatMessage) {
    super('aalis-message', { ...init, detail: { message } });
  }
}

/**
 * An `error` frame, or a connection refused for good. `message` is the server's (English)
 * words; `errorId`, when the server gave one, finds the detail in its log.
 */
export class AalisErrorEvent extends CustomEvent<{ code: string; message: string; errorId?: string }> {
  constructor(code: string, message: string, errorId?: string) {
    super('aalis-error', {
      ...init,
      detail: errorId === undefined ? { code, message } : { code, message, errorId },
    });
  }
}

/** The connection changed state; `retryInMs` while reconnecting. */
export class AalisConnectionChangeEvent extends CustomEvent<{ state: ConnectionState; retryInMs?: number }> {
  constructor(state: ConnectionState, retryInMs?: number) {
    super('aalis-connection-change', {
      ...init,
      detail: retryInMs === undefined ? { state } : { state, retryInMs },
    });
  }
}

/**
 * A tool call waits for the user's approval: dispatched once per request, when it first
 * appears (live, or restored after a reload). `arguments` is absent when the server sent none.
 */
export class AalisToolApprovalEvent extends CustomEvent<
  Pick<ToolApproval, 'callId' | 'name' | 'arguments' | 'policy'>
> {
  constructor({ callId, name, arguments: args, policy }: ToolApproval) {
    super('aalis-tool-approval', { ...init, detail: { callId, name, arguments: args, policy } });
  }
}

/** The visitor rated an answer (a thumb, or its comment). */
export class AalisFeedbackEvent extends CustomEvent<{
  messageId: string;
  rating: 'up' | 'down';
  comment?: string;
}> {
  constructor(messageId: string, rating: 'up' | 'down', comment?: string) {
    super('aalis-feedback', {
      ...init,
      detail: comment === undefined ? { messageId, rating } : { messageId, rating, comment },
    });
  }
}

/** Launcher mode: the panel opened (`open`), or closed (`close`). */
export class AalisPanelEvent extends CustomEvent<null> {
  constructor(type: 'aalis-open' | 'aalis-close') {
    super(type, { ...init, detail: null });
  }
}

declare global {
  interface HTMLElementEventMap {
    'aalis-send': AalisSendEvent;
    'aalis-message': AalisMessageEvent;
    'aalis-error': AalisErrorEvent;
    'aalis-connection-change': AalisConnectionChangeEvent;
    'aalis-tool-approval': AalisToolApprovalEvent;
    'aalis-feedback': AalisFeedbackEvent;
    'aalis-open': AalisPanelEvent;
    'aalis-close': AalisPanelEvent;
  }
}
