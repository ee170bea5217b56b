/**
 * What an upstream protocol folder (ag-ui/, ai-sdk/) registers in upstream/registry.ts:
 * its name, how one turn's request is written from the conversation, and how its
 * response is read into the shared agent events. The posting, the stream's limits and
 * patience, the order checks and the frames are the core's, the same for every protocol.
 */
import type { ToolImage } from '../../providers/core/types.js';
import type { StoredMessage } from '../../agent/stored-message.js';
import type { RunReader } from './agent-event.js';

/** One turn as a request to the agent. */
export interface RunRequest {
  /** The conversation's id: the agent's thread (AG-UI) or chat id (AI SDK), the same for every turn. */
  sessionId: string;
  /** New for each turn. */
  runId: string;
  /** The conversation so far, latest versions only, ending with the question. */
  history: readonly StoredMessage[];
  /** The bytes of the images the history's questions name, by id (when images are on). */
  images: ReadonlyMap<string, ToolImage>;
}

export interface UpstreamProtocol<Name extends string = string> {
  /** What `AALIS_AGENT_PROTOCOL` names it by, and the back-end's name in logs and metrics. */
  readonly name: Name;
  /** The request's body, as JSON. */
  body(run: RunRequest): unknown;
  /** Refuses a response that is not this protocol's stream (throws an AgentRunError). */
  checkResponse?(headers: Headers): void;
  /** A reader for one run's events. */
  reader(): RunReader;
}

/** A definition, its name kept as a literal type (so the registry can list the names). */
export const defineUpstreamProtocol = <const Name extends string>(
  protocol: UpstreamProtocol<Name>,
): UpstreamProtocol<Name> => protocol;
