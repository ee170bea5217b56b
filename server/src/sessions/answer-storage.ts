/**
 * A turn's answer into the history, and into the `message` frame every tab gets. When
 * the history cannot take it (the database is down, the disk is full), the answer is not
 * thrown away: it is kept (answer-keeper.ts) and tried again with backoff while the turn
 * stays open, its tabs told `turn_status` `saving`; past the keeper's longest wait the
 * turn ends for its tabs, the answer marked as not saved yet, and is tried on in the
 * background until stored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, type ChatMessage } from '@aalis/protocol';
import type { TurnError } from '../agent/turn-agent.js';
import { logErrorWithId } from '../util/log-error.js';
import type { KeptAnswer, KeptAnswers } from './answer-keeper.js';
import type { HubLogger } from './hub-options.js';

export interface StoredAnswer {
  /** The message to send. */
  message: ChatMessage;
  /** The errors to tell: the turn's own, then storage's. */
  errors: TurnError[];
  /** The store refused the answer: the turn was no longer this instance's (another one ended it). */
  lost?: true;
}

/** The turn whose answer is being stored, as storing it needs to see it. */
export interface SavingTurn {
  sessionId: string;
  turnId: string;
  /** Aborted by a Stop or the shutdown: the turn stops waiting, and its answer stays kept. */
  signal: AbortSignal;
  /** False once another instance took the turn over: its answer is then that one's to end (fencing). */
  owned(): boolean;
  /** True once the server is going down: nothing is tried in the background then (the keeper has it for the next start). */
  stopping(): boolean;
  /** Tells every tab the answer waits: attempt `attempt` comes in `retryInMs`. */
  saving(status: { attempt: number; retryInMs: number }): void;
}

/**
 * Stores the turn's answer. A write the store fences (another instance ended the turn)
 * is `lost`, never tried again. A write that fails keeps the answer and tries again
 * until stored, for at most the keeper's longest wait; then the visitor keeps what was
 * shown, marked as not saved yet, and the keeper goes on trying.
 */
export async function storeAnswer(
  kept: KeptAnswers,
  logger: HubLogger,
  turn: SavingTurn,
  message: ChatMessage,
): Promise<StoredAnswer> {
  const { sessionId, turnId } = turn;
  const own = message.error ? [message.error as TurnError] : [];
  try {
    if (!(await kept.store.endTurn(sessionId, message, turnId))) return { message, errors: own, lost: true };
    return { message, errors: own };
  } catch (thrown) {
    const errorId = logErrorWithId(logger, thrown, 'storing the answer failed: it is kept and tried again', {
      sessionId,
      turnError: message.error?.code ?? null,
    });
    const answer: KeptAnswer = { sessionId, turnId, message, keptAt: Date.now() };
    await kept.keep(answer);
    const outcome = await tryAgain(kept, turn, answer);
    if (outcome === 'stored') {
      logger.info({ sessionId, waitedMs: Date.now() - answer.keptAt }, 'a kept answer was stored');
      return { message, errors: own };
    }
    // Fenced, or taken over while it waited: the instance that ended the turn tells the tabs.
    if (outcome === 'fenced' || outcome === 'lost') return { message, errors: [], lost: true };
    if (!turn.stopping()) kept.retryInBackground(answer, outcome.attempt, turn.stopping);
    const unsaved = unsavedError(errorId);
    return { message: markedUnsaved(message, unsaved), errors: [...own, unsaved] };
  }
}

/** Why an answer kept for the history says it is not saved yet. */
export function unsavedError(errorId: string): TurnError {
  return {
    code: ErrorCode.Storage,
    message: 'the answer could not be saved yet: it is kept and saved when the history is back',
    errorId,
  };
}

/** The visitor keeps what was shown (it may still be copied), marked as not saved yet. */
export function markedUnsaved(message: ChatMessage, unsaved: TurnError): ChatMessage {
  return { ...message, status: 'error', error: message.error ?? unsaved };
}

/**
 * Tries the kept answer again with backoff while the turn waits: stored or fenced, lost
 * (taken over), or given up at the longest wait (or a Stop, or the shutdown) with the
 * attempt the background goes on from.
 */
async function tryAgain(
  kept: KeptAnswers,
  turn: SavingTurn,
  answer: KeptAnswer,
): Promise<'stored' | 'fenced' | 'lost' | { attempt: number }> {
  const deadline = answer.keptAt + kept.maxWaitMs;
  // Attempt 1 was the one that failed.
  for (let attempt = 2; ; attempt++) {
    const left = deadline - Date.now();
    if (left <= 0 || turn.signal.aborted) return { attempt };
    const retryInMs = Math.min(kept.delayBefore(attempt), left);
    turn.saving({ attempt, retryInMs });
    try {
      await sleep(retryInMs, undefined, { signal: turn.signal });
    } catch {
      return { attempt }; // Stopped while it waited.
    }
    // Another instance presumed this one dead: the answer stays kept for the one that ends the turn.
    if (!turn.owned()) return 'lost';
    try {
      return await kept.storeOnce(answer);
    } catch {
      // Still down; said once already, when it was kept.
    }
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
