/**
 * A message as the server stores it: the protocol's `ChatMessage`, and for an answer
 * whose provider gave something to send back with its rounds (providers/core/types.ts,
 * RoundReplay), the record of those rounds. The record is the server's alone: it is
 * opaque, can be large (signed or encrypted reasoning), and means nothing to a page, so
 * `forClients` takes it off every message that leaves for a tab.
 */
import type { ChatMessage } from '@aalis/protocol';
import type { RoundReplay } from '../providers/core/types.js';

/** One model round of an answer: the calls it made (which tell rounds apart) and its replay. */
export interface RoundRecord {
  callIds: string[];
  replay?: RoundReplay;
}

export type StoredMessage = ChatMessage & { rounds?: RoundRecord[] };

/** The message as a client may see it: without the server's round record. */
export function forClients(message: StoredMessage): ChatMessage {
  if (message.rounds === undefined) return message;
  const { rounds: _rounds, ...shown } = message;
  return shown;
}
