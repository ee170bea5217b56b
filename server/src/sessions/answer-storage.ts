/**
 * A turn's answer into the history, and into the `message` frame every tab gets. What a
 * failed write leaves the visitor with is decided here: the truth, and a history that
 * still answers the question.
 */
import { ErrorCode, type ChatMessage } from '@aalis/protocol';
import type { TurnError } from '../agent/agent.js';
import type { HistoryStore } from '../history/store.js';
import { logErrorWithId } from '../util/log-error.js';
import type { HubLogger } from './hub-options.js';

export interface StoredAnswer {
  /** The message to send. */
  message: ChatMessage;
  /** The errors to tell: the turn's own, then storage's. */
  errors: TurnError[];
  /** The store refused the answer: the turn was no longer this instance's (another one ended it). */
  lost?: true;
}

/**
 * Stores the turn's answer. When storing fails (a full disk), a small failed message
 * under the same id takes the answer's place, with the turn's own reason when it had one.
 * When even that fails, the turn stays marked as running in the store, and the next turn
 * or start marks it failed.
 */
export async function storeAnswer(
  store: HistoryStore,
  logger: HubLogger,
  sessionId: string,
  turnId: string,
  message: ChatMessage,
): Promise<StoredAnswer> {
  const own = message.error ? [message.error as TurnError] : [];
  try {
    if (!(await store.endTurn(sessionId, message, turnId))) return { message, errors: own, lost: true };
    return { message, errors: own };
  } catch (thrown) {
    const unsaved: TurnError = {
      code: ErrorCode.Storage,
      message: 'the answer could not be saved: it will be gone after a reload',
      errorId: logErrorWithId(logger, thrown, 'storing the answer failed', {
        sessionId,
        turnError: message.error?.code ?? null,
      }),
    };
    const failed: ChatMessage = { ...message, status: 'error', error: message.error ?? unsaved };
    try {
      const { usage: _usage, ...stub } = failed;
      // Refused: another instance ended the turn meanwhile, and its answer stands.
      if (!(await store.endTurn(sessionId, { ...stub, parts: [] }, turnId)))
        return { message: failed, errors: [], lost: true };
    } catch (again) {
      logger.error(
        { err: again, errorId: unsaved.errorId, sessionId },
        'storing the failed answer failed too: the turn stays marked running until the next turn or start',
      );
    }
    // The visitor keeps what was shown (it may still be copied), marked as not saved.
    return { message: failed, errors: [...own, unsaved] };
  }
}

/**
 * The `message` frame's copy of a final message: its tool calls without their
 * arguments, which every client of the session already has (from `tool_execute` start
 * or `stream_resume`); the reducer puts them back. Large arguments cross the wire once.
 */
export function withoutArguments(message: ChatMessage): ChatMessage {
  if (!message.parts.some((p) => p.type === 'tool_call' && p.arguments !== undefined)) return message;
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (part.type !== 'tool_call') return part;
      const { arguments: _arguments, ...rest } = part;
      return rest;
    }),
  };
}
