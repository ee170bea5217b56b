/**
 * An AG-UI run's events, each checked with `@ag-ui/core`'s own schemas and mapped to the
 * shared agent events. The chunk shorthands (TEXT_MESSAGE_CHUNK, REASONING_MESSAGE_CHUNK,
 * TOOL_CALL_CHUNK) are read as the protocol defines them: a chunk with a new id opens its
 * message or call (a call's first chunk names its tool), one without continues the open
 * one, and any other event closes it. The run must begin with RUN_STARTED; RUN_FINISHED
 * completes it, with its `usage` (the protocol's TokenUsage, summed over its models).
 */
import { EventType, type AGUIEvent, type ContentPart, type TokenUsage } from '@ag-ui/core';
import type * as Schemas from '@ag-ui/core/schemas';
import { usageOf, type AgentStreamEvent, type RunReader, type SseEvent } from '../core/agent-event.js';
import { AgentRunError, parseEventJson, unreadable } from '../core/agent-errors.js';

const AGENT = 'ag-ui';

/** The open chunked message, reasoning or call, by what continues it. */
type ChunkType = EventType.TEXT_MESSAGE_CHUNK | EventType.REASONING_MESSAGE_CHUNK | EventType.TOOL_CALL_CHUNK;

export class AgUiRunReader implements RunReader {
  #started = false;
  readonly #open = new Map<ChunkType, string>();

  async read({ data }: SseEvent): Promise<AgentStreamEvent[]> {
    const event = await parseEvent(data);
    const source = event.type;
    if (!this.#started && event.type !== EventType.RUN_STARTED && event.type !== EventType.RUN_ERROR)
      throw unreadable(AGENT, `${source} before RUN_STARTED`);
    const out = this.#closeChunks(event.type);
    switch (event.type) {
      case EventType.RUN_STARTED:
        if (this.#started) throw unreadable(AGENT, 'a second RUN_STARTED in one run');
        this.#started = true;
        break;
      case EventType.TEXT_MESSAGE_START:
      case EventType.REASONING_MESSAGE_START:
        out.push({ source, type: 'block-start', kind: kindOf(event.type), id: event.messageId });
        break;
      case EventType.TEXT_MESSAGE_CONTENT:
      case EventType.REASONING_MESSAGE_CONTENT:
        out.push({
          source,
          type: 'block-delta',
          kind: kindOf(event.type),
          id: event.messageId,
          delta: event.delta,
        });
        break;
      case EventType.TEXT_MESSAGE_END:
      case EventType.REASONING_MESSAGE_END:
        out.push({ source, type: 'block-end', kind: kindOf(event.type), id: event.messageId });
        break;
      case EventType.TEXT_MESSAGE_CHUNK:
      case EventType.REASONING_MESSAGE_CHUNK: {
        const kind = kindOf(event.type);
        const id = this.#continued(event.type, event.messageId, out, (opened) => [
          { source, type: 'block-start', kind, id: opened },
        ]);
        if (event.delta) out.push({ source, type: 'block-delta', kind, id, delta: event.delta });
        break;
      }
      case EventType.TOOL_CALL_START:
        out.push({ source, type: 'call-start', callId: event.toolCallId, name: event.toolCallName });
        break;
      case EventType.TOOL_CALL_ARGS:
        out.push({ source, type: 'call-delta', callId: event.toolCallId, delta: event.delta });
        break;
      case EventType.TOOL_CALL_END:
        out.push({ source, type: 'call-end', callId: event.toolCallId });
        break;
      case EventType.TOOL_CALL_CHUNK: {
        const callId = this.#continued(event.type, event.toolCallId, out, (opened) => {
          if (!event.toolCallName)
            throw unreadable(AGENT, `a TOOL_CALL_CHUNK opening tool call ${opened} without its toolCallName`);
          return [{ source, type: 'call-start', callId: opened, name: event.toolCallName }];
        });
        if (event.delta) out.push({ source, type: 'call-delta', callId, delta: event.delta });
        break;
      }
      case EventType.TOOL_CALL_RESULT:
        out.push({ source, type: 'call-result', callId: event.toolCallId, ...resultOf(event.content) });
        break;
      case EventType.RUN_FINISHED: {
        const usage = summedUsage(event.usage);
        if (usage) out.push({ source, type: 'usage', usage });
        if (event.outcome?.type === 'interrupt')
          throw new AgentRunError(
            'upstream',
            `the ${AGENT} agent paused its run for input: ${event.outcome.interrupts.map((i) => i.message ?? i.reason).join('; ')}`,
            { told: 'the agent asked for input this chat cannot give' },
          );
        out.push(
          event.outcome?.type === 'cancelled'
            ? { source, type: 'failed', message: 'the run was cancelled' }
            : { source, type: 'finished' },
        );
        break;
      }
      case EventType.RUN_ERROR: {
        const usage = summedUsage(event.usage);
        if (usage) out.push({ source, type: 'usage', usage });
        out.push({
          source,
          type: 'failed',
          message: event.code ? `${event.code}: ${event.message}` : event.message,
        });
        break;
      }
      default:
        // State, activity, steps, raw and custom events, subagents: nothing a visitor is shown.
        break;
    }
    return out;
  }

  /** Any event but the open chunk's own kind closes it. */
  #closeChunks(type: EventType): AgentStreamEvent[] {
    const out: AgentStreamEvent[] = [];
    for (const [chunk, id] of this.#open) {
      if (chunk === type) continue;
      this.#open.delete(chunk);
      if (chunk === EventType.TOOL_CALL_CHUNK) out.push({ source: chunk, type: 'call-end', callId: id });
      else
        out.push({
          source: chunk,
          type: 'block-end',
          kind: chunk === EventType.TEXT_MESSAGE_CHUNK ? 'text' : 'reasoning',
          id,
        });
    }
    return out;
  }

  /** The id a chunk continues: a new one opens (closing the one open), none continues the open one. */
  #continued(
    chunk: ChunkType,
    id: string | undefined,
    out: AgentStreamEvent[],
    opening: (id: string) => AgentStreamEvent[],
  ): string {
    const open = this.#open.get(chunk);
    if (id === undefined || id === open) {
      if (open === undefined) throw unreadable(AGENT, `a ${chunk} without an id, and none open to continue`);
      return open;
    }
    if (open !== undefined) {
      out.push(
        chunk === EventType.TOOL_CALL_CHUNK
          ? { source: chunk, type: 'call-end', callId: open }
          : {
              source: chunk,
              type: 'block-end',
              kind: chunk === EventType.TEXT_MESSAGE_CHUNK ? 'text' : 'reasoning',
              id: open,
            },
      );
    }
    out.push(...opening(id));
    this.#open.set(chunk, id);
    return id;
  }
}

/** The kind of block a TEXT_MESSAGE_* or REASONING_MESSAGE_* event is about. */
const kindOf = (type: EventType) => (type.startsWith('TEXT') ? ('text' as const) : ('reasoning' as const));

/**
 * The official schemas, loaded with the first event read: zod and the schemas cost a
 * server that fronts no AG-UI agent nothing (most servers, and every test process).
 */
let schemas: Promise<typeof Schemas> | undefined;

async function parseEvent(data: string): Promise<AGUIEvent> {
  const json = parseEventJson(AGENT, data, 'an event');
  const { EventSchemas } = await (schemas ??= import('@ag-ui/core/schemas'));
  const parsed = EventSchemas.safeParse(json);
  if (parsed.success) return parsed.data as AGUIEvent;
  const type = (json as { type?: unknown } | null)?.type;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw unreadable(
    AGENT,
    `an event that is not an AG-UI event (${typeof type === 'string' ? type : 'no type'}; ${where}${issue?.message ?? 'invalid'})`,
  );
}

/**
 * What a tool returned: its text, or for parts, their text with the images beside it in
 * the shape tool results carry images here (cap-result.ts), so a tab shows them.
 */
function resultOf(content: string | ContentPart[]): { result: unknown; isError: boolean } {
  if (typeof content === 'string') return { result: content, isError: false };
  const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const images = content.flatMap((part) =>
    part.type === 'image' && part.source.type === 'data' && part.source.mimeType
      ? [{ type: 'image', mimeType: part.source.mimeType, data: part.source.value }]
      : [],
  );
  return { result: images.length ? { content: text, images } : text, isError: false };
}

/** The run's usage over every model it used; undefined when it reported no count. */
function summedUsage(entries: TokenUsage[] | undefined) {
  if (!entries?.length) return undefined;
  // A total only when every entry has one: else it is the two counts summed (usageOf).
  const sum = (key: 'inputTokens' | 'outputTokens' | 'totalTokens') =>
    (
      key === 'totalTokens'
        ? entries.every((entry) => entry[key] !== undefined)
        : entries.some((entry) => entry[key] !== undefined)
    )
      ? entries.reduce((total, entry) => total + (entry[key] ?? 0), 0)
      : undefined;
  return usageOf({
    inputTokens: sum('inputTokens'),
    outputTokens: sum('outputTokens'),
    totalTokens: sum('totalTokens'),
  });
}
