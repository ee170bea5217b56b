/**
 * An AI SDK UI message stream (`toUIMessageStreamResponse()`, `createUIMessageStream`),
 * each chunk checked with the `ai` package's own `uiMessageChunkSchema` and mapped to the
 * shared agent events. `finish` completes the run; `error` and `abort` fail it. A call's
 * input given whole (`tool-input-available`) is what it ran with; a call that was never
 * streamed (a model that gives inputs whole) opens with it. Usage is read from the
 * message metadata (`start`, `message-metadata`, `finish`): `totalUsage`, else `usage`,
 * as `{ inputTokens, outputTokens, totalTokens }`, the AI SDK's own names.
 */
import type { UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { usageOf, type AgentStreamEvent, type RunReader, type SseEvent } from '../core/agent-event.js';
import { parseEventJson, unreadable } from '../core/agent-errors.js';

const AGENT = 'ai-sdk';

/**
 * The schema, made once, when the first stream is read: the `ai` package is loaded then,
 * so that it costs a server that fronts no AI SDK route (and every test process) nothing.
 */
let schema: Promise<ReturnType<typeof uiMessageChunkSchema>> | undefined;

export class AiSdkRunReader implements RunReader {
  /** The calls opened so far. */
  readonly #calls = new Set<string>();
  #done = false;

  async read({ data }: SseEvent): Promise<AgentStreamEvent[]> {
    // The stream's own end mark, after `finish`.
    if (data === '[DONE]') {
      this.#done = true;
      return [];
    }
    if (this.#done) throw unreadable(AGENT, 'a chunk after [DONE]');
    const chunk = await parseChunk(data);
    const source = chunk.type;
    const out: AgentStreamEvent[] = [];
    switch (chunk.type) {
      case 'text-start':
      case 'reasoning-start':
        out.push({ source, type: 'block-start', kind: kindOf(chunk.type), id: chunk.id });
        break;
      case 'text-delta':
      case 'reasoning-delta':
        out.push({ source, type: 'block-delta', kind: kindOf(chunk.type), id: chunk.id, delta: chunk.delta });
        break;
      case 'text-end':
      case 'reasoning-end':
        out.push({ source, type: 'block-end', kind: kindOf(chunk.type), id: chunk.id });
        break;
      case 'tool-input-start':
        this.#calls.add(chunk.toolCallId);
        out.push({ source, type: 'call-start', callId: chunk.toolCallId, name: chunk.toolName });
        break;
      case 'tool-input-delta':
        out.push({ source, type: 'call-delta', callId: chunk.toolCallId, delta: chunk.inputTextDelta });
        break;
      case 'tool-input-available':
        out.push(...this.#inputWhole(source, chunk.toolCallId, chunk.toolName, chunk.input));
        break;
      case 'tool-input-error':
        // Input the agent's tool refused: the call ends at once, failed, as one of ours would.
        out.push(
          ...this.#inputWhole(source, chunk.toolCallId, chunk.toolName, chunk.input),
          failed(source, chunk.toolCallId, chunk.errorText),
        );
        break;
      case 'tool-output-available':
        // A preliminary output is a step of a tool still running; its last output is the result.
        if (!chunk.preliminary)
          out.push({
            source,
            type: 'call-result',
            callId: chunk.toolCallId,
            result: chunk.output,
            isError: false,
          });
        break;
      case 'tool-output-error':
        out.push(failed(source, chunk.toolCallId, chunk.errorText));
        break;
      case 'tool-output-denied':
        out.push(failed(source, chunk.toolCallId, 'The call was denied; it did not run.'));
        break;
      case 'start':
      case 'message-metadata':
        out.push(...usageFrom(source, chunk.messageMetadata));
        break;
      case 'finish':
        out.push(...usageFrom(source, chunk.messageMetadata), { source, type: 'finished' });
        break;
      case 'error':
        out.push({ source, type: 'failed', message: chunk.errorText });
        break;
      case 'abort':
        out.push({
          source,
          type: 'failed',
          message: `the agent aborted its answer${chunk.reason ? `: ${chunk.reason}` : ''}`,
        });
        break;
      default:
        // Steps, sources, files, data parts, approval requests: nothing a turn here shows.
        break;
    }
    return out;
  }

  /** A call's whole input: it ends the call's writing, opening it first when it never streamed. */
  #inputWhole(source: string, callId: string, name: string, input: unknown): AgentStreamEvent[] {
    const text = typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '{}');
    if (this.#calls.has(callId)) return [{ source, type: 'call-end', callId, arguments: text }];
    this.#calls.add(callId);
    return [
      { source, type: 'call-start', callId, name },
      { source, type: 'call-delta', callId, delta: text },
      { source, type: 'call-end', callId },
    ];
  }
}

/** A call that ended failed, with what the agent said of it. */
const failed = (source: string, callId: string, result: string): AgentStreamEvent => ({
  source,
  type: 'call-result',
  callId,
  result,
  isError: true,
});

const kindOf = (type: string) => (type.startsWith('text') ? ('text' as const) : ('reasoning' as const));

async function parseChunk(data: string): Promise<UIMessageChunk> {
  const json = parseEventJson(AGENT, data, 'a chunk');
  schema ??= import('ai').then((ai) => ai.uiMessageChunkSchema());
  const checked = await (await schema).validate!(json);
  if (checked.success) return checked.value;
  const type = (json as { type?: unknown } | null)?.type;
  throw unreadable(
    AGENT,
    `a chunk that is not a UI message stream chunk (${typeof type === 'string' ? `"${type}" without the fields it needs` : 'no type'})`,
  );
}

/** The usage the message metadata reports: `totalUsage` (every step), else `usage`. */
function usageFrom(source: string, metadata: unknown): AgentStreamEvent[] {
  if (typeof metadata !== 'object' || metadata === null) return [];
  const { totalUsage, usage } = metadata as { totalUsage?: unknown; usage?: unknown };
  const counts = (totalUsage ?? usage) as Parameters<typeof usageOf>[0] | undefined;
  const found = typeof counts === 'object' && counts !== null ? usageOf(counts) : undefined;
  return found ? [{ source, type: 'usage', usage: found }] : [];
}
