/**
 * What an upstream agent's run says, whatever protocol carried it: the one event model
 * both protocol folders map their events to (ag-ui/, ai-sdk/), and the translator reads
 * (event-translator.ts). Each event names the wire event it came from (`source`), so a
 * mistake the translator finds says which event was wrong, in the protocol's own words.
 */
import type { Usage } from '@aalis/protocol';

/** A block of text or of reasoning: opened, written in deltas, closed. */
export type BlockKind = 'text' | 'reasoning';

export type AgentStreamEvent = { source: string } & (
  | { type: 'block-start'; kind: BlockKind; id: string }
  | { type: 'block-delta'; kind: BlockKind; id: string; delta: string }
  | { type: 'block-end'; kind: BlockKind; id: string }
  /** A tool call opens: its card appears with the tool's name. */
  | { type: 'call-start'; callId: string; name: string }
  /** A fragment of the call's arguments, as the agent's model writes them. */
  | { type: 'call-delta'; callId: string; delta: string }
  /**
   * The call's arguments are complete. `arguments`, when the agent gives them whole (the AI
   * SDK's parsed input), are what the call runs with, instead of the fragments joined.
   */
  | { type: 'call-end'; callId: string; arguments?: string }
  /** What the agent's tool returned; `isError` when it failed. */
  | { type: 'call-result'; callId: string; result: unknown; isError: boolean }
  /** The run's token usage so far (it replaces what an earlier one said). */
  | { type: 'usage'; usage: Usage }
  /** The run completed. */
  | { type: 'finished' }
  /** The agent says its run failed; `message` is its own words, for the log only. */
  | { type: 'failed'; message: string }
);

/** One Server-Sent Event: its `event:` name, if any, and its data lines joined. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Reads one run's stream: each SSE event to the agent events it means. Made afresh for
 * each run, so it may keep what the protocol needs to remember between events (a chunked
 * call still open). Throws an `AgentRunError` for an event that cannot be read.
 */
export interface RunReader {
  read(event: SseEvent): Promise<AgentStreamEvent[]> | AgentStreamEvent[];
}

/** A usage from counts an agent reported, when it reported any. */
export function usageOf(counts: {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
}): Usage | undefined {
  const count = (value: number | undefined) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  const prompt = count(counts.inputTokens);
  const completion = count(counts.outputTokens);
  const total = count(counts.totalTokens);
  if (prompt === undefined && completion === undefined && total === undefined) return undefined;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    totalTokens: total ?? (prompt ?? 0) + (completion ?? 0),
  };
}
