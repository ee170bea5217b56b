/**
 * The official AG-UI client as tests use it: `HttpAgent`, a subclass that rejoins, and a
 * subscriber that checks every event against @ag-ui/core's schemas as it comes.
 */
import { randomUUID } from 'node:crypto';
import {
  HttpAgent,
  runHttpRequest,
  transformHttpEventStream,
  type AgentSubscriber,
  type HttpAgentConfig,
} from '@ag-ui/client';
import { EventType, type BaseEvent, type Message, type RunAgentInput } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import type { Observable } from 'rxjs';
import { waitFor } from './fixtures/mcp/harness.js';

/**
 * `HttpAgent` with the rejoin AG-UI leaves to implementations: its `connect` (what
 * `connectAgent()` runs) reads `GET /ag-ui/threads/{threadId}/stream` through the
 * client's own SSE parsing and event checks.
 */
export class RejoiningAgent extends HttpAgent {
  constructor(
    config: HttpAgentConfig,
    private readonly base: string,
  ) {
    super(config);
  }

  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    const url = `${this.base}/ag-ui/threads/${encodeURIComponent(input.threadId)}/stream`;
    return transformHttpEventStream(
      runHttpRequest(() =>
        fetch(url, { method: 'GET', headers: { ...this.headers, accept: 'text/event-stream' } }),
      ),
    );
  }
}

/** Every event a run gave, each checked against the official schema as it came. */
export function recorder(): { events: BaseEvent[]; subscriber: AgentSubscriber } {
  const events: BaseEvent[] = [];
  return {
    events,
    subscriber: {
      onEvent: ({ event }) => {
        const checked = EventSchemas.safeParse(event);
        if (!checked.success)
          throw new Error(`invalid AG-UI event ${JSON.stringify(event)}: ${checked.error.message}`);
        events.push(event);
      },
    },
  };
}

export const userMessage = (content: string): Message => ({ id: randomUUID(), role: 'user', content });

export const argsOf = (events: BaseEvent[], toolCallId: string) =>
  events
    .filter(
      (e) => e.type === EventType.TOOL_CALL_ARGS && (e as { toolCallId?: string }).toolCallId === toolCallId,
    )
    .map((e) => (e as unknown as { delta: string }).delta)
    .join('');

/** Waits until `condition` holds (the MCP harness's waitFor, which checks every 20 ms). */
export const until = (condition: () => boolean, timeoutMs = 10_000): Promise<void> =>
  waitFor(condition, 'the condition', timeoutMs).then(() => undefined);

/** The number of TOOL_CALL_ARGS events a run has given so far. */
export const argsCount = (events: BaseEvent[]): number =>
  events.filter((e) => e.type === EventType.TOOL_CALL_ARGS).length;
