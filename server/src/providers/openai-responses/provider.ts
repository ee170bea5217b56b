/**
 * OpenAI's Responses API over the `openai` SDK (`responses.create({ stream: true })`),
 * for OpenAI and the servers that speak it. A `function_call` item's arrival gives its
 * card at once (name, call id), every `function_call_arguments.delta` is a progress chunk
 * with the absolute length, output text is text, and reasoning summaries (or the raw
 * reasoning of open models) are reasoning. `response.completed` completes the round;
 * `response.incomplete`, `response.failed` and an `error` event end it with their reason.
 *
 * No state is kept on OpenAI's side (`store: false`): every request carries the whole
 * conversation, the earlier rounds' function calls, their outputs, and the reasoning
 * items the model asked to see again, with their encrypted content (`replay`). So it works
 * where nothing is stored, and with compatible servers.
 */
import type OpenAI from 'openai';
import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { ChatStreamChunk, Usage } from '@aalis/protocol';
import { createOpenAIClient, openAIMidStreamError, openAIRequestError } from '../openai/client.js';
import { ProviderError, outputLimitError } from '../core/errors.js';
import type { RetryPolicy } from '../core/retry.js';
import { streamRound, type RoundState, type UpstreamTimeouts } from '../core/round-stream.js';
import {
  dataUrl,
  type ChatProvider,
  type ChatRequest,
  type ChatStreamOptions,
  type ModelMessage,
  type ProviderChunk,
  type ToolImage,
} from '../core/types.js';

export const OPENAI_RESPONSES = 'openai-responses';

/** How hard a reasoning model thinks; `none` turns reasoning off where the model allows it. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface OpenAIResponsesProviderOptions extends UpstreamTimeouts {
  apiKey: string;
  baseURL?: string;
  retry?: RetryPolicy;
  /** Longest answer of one round, in tokens; the model's own limit when unset. */
  maxOutputTokens?: number;
  /**
   * Reasoning: asked for with a summary and its encrypted content (to send back), at the
   * effort given or the model's default (`default`); `off` asks for none, which models
   * without reasoning require. Unset: asked for when the model's name is a reasoning
   * model's (o1, o3, o4-mini, gpt-5, not gpt-5-chat).
   */
  reasoning?: ReasoningEffort | 'default' | 'off';
}

/** Model names that reason, and so take `reasoning` and return encrypted reasoning. */
const REASONING_MODEL = /^(o\d|gpt-5(?!.*-chat))/i;

export class OpenAIResponsesProvider implements ChatProvider {
  readonly name = OPENAI_RESPONSES;
  readonly #client: OpenAI;
  readonly #options: OpenAIResponsesProviderOptions;

  constructor(options: OpenAIResponsesProviderOptions) {
    this.#options = options;
    this.#client = createOpenAIClient(options);
  }

  chatStream(request: ChatRequest, options: ChatStreamOptions = {}): AsyncGenerator<ProviderChunk> {
    const { retry, firstByteTimeoutMs, idleTimeoutMs } = this.#options;
    const response = new ResponseReader(this.name);
    return streamRound(
      this.name,
      {
        open: (abort) => this.#create(request, abort),
        read: (event, round) => response.read(event, round),
        classify: (error) => openAIMidStreamError(this.name, error),
      },
      { ...options, retry, firstByteTimeoutMs, idleTimeoutMs },
    );
  }

  async #create(request: ChatRequest, signal: AbortSignal): Promise<AsyncIterable<ResponseStreamEvent>> {
    try {
      return await this.#client.responses.create(this.#body(request), { signal });
    } catch (error) {
      throw openAIRequestError(this.name, error, signal);
    }
  }

  #body(request: ChatRequest): ResponseCreateParamsStreaming {
    const { instructions, input } = toResponsesInput(request.messages);
    const reasoning = this.#reasoning(request.model);
    const { maxOutputTokens } = this.#options;
    return {
      model: request.model,
      ...(instructions ? { instructions } : {}),
      input,
      ...(request.tools.length
        ? {
            tools: request.tools.map((tool) => ({
              type: 'function' as const,
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
              // Strict mode would reject the ordinary schemas tools have (optional properties).
              strict: false,
            })),
          }
        : {}),
      ...(reasoning
        ? {
            reasoning: { ...(reasoning === 'default' ? {} : { effort: reasoning }), summary: 'auto' },
            include: ['reasoning.encrypted_content'],
          }
        : {}),
      ...(maxOutputTokens ? { max_output_tokens: maxOutputTokens } : {}),
      store: false,
      stream: true,
    };
  }

  #reasoning(model: string): ReasoningEffort | 'default' | undefined {
    const { reasoning } = this.#options;
    if (reasoning === 'off') return undefined;
    return reasoning ?? (REASONING_MODEL.test(model) ? 'default' : undefined);
  }
}

/** Reads one streamed response, event by event, into chunks and the round's state. */
class ResponseReader {
  /** Function-call item id -> the call's index in this round, and its arguments so far. */
  readonly #calls = new Map<string, { index: number; arguments: string }>();
  /** Whether reasoning was shown yet this round: the next summary part starts a paragraph. */
  #reasoned = false;

  constructor(private readonly provider: string) {}

  *read(event: ResponseStreamEvent, round: RoundState): Generator<ChatStreamChunk> {
    switch (event.type) {
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          const call = { index: this.#calls.size, arguments: '' };
          this.#calls.set(event.item.id ?? `output ${event.output_index}`, call);
          // The card appears now, before a character of the arguments has streamed.
          yield {
            toolCallProgress: round.calls.add({
              index: call.index,
              id: event.item.call_id,
              function: { name: event.item.name },
            }),
          };
          if (event.item.arguments) yield* this.#arguments(call, event.item.arguments, round);
        }
        return;
      case 'response.function_call_arguments.delta': {
        const call = this.#calls.get(event.item_id);
        if (call && event.delta) yield* this.#arguments(call, event.delta, round);
        return;
      }
      case 'response.function_call_arguments.done': {
        const call = this.#calls.get(event.item_id);
        if (call) yield* this.#completed(call, event.arguments, round);
        return;
      }
      case 'response.output_item.done':
        if (event.item.type === 'function_call') {
          const call = this.#calls.get(event.item.id ?? `output ${event.output_index}`);
          if (call) yield* this.#completed(call, event.item.arguments, round);
        } else if (event.item.type === 'reasoning') {
          this.#keepReasoning(event.item, round);
        }
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (event.delta) yield { contentDelta: event.delta };
        return;
      case 'response.reasoning_summary_part.added':
        // Each summary part is a paragraph of its own, in whichever reasoning item.
        if (this.#reasoned) yield { reasoningDelta: '\n\n' };
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) {
          this.#reasoned = true;
          yield { reasoningDelta: event.delta };
        }
        return;
      case 'response.completed':
        round.usage = usageOf(event.response.usage);
        round.finished = true;
        return;
      case 'response.incomplete': {
        const reason = event.response.incomplete_details?.reason ?? 'no reason given';
        if (reason === 'max_output_tokens' && round.calls.size) {
          throw outputLimitError(this.provider, 'max_output_tokens');
        }
        throw new ProviderError('upstream', `${this.provider} stopped before finishing (${reason})`);
      }
      case 'response.failed': {
        const error = event.response.error;
        throw new ProviderError(
          'upstream',
          `${this.provider} failed mid-answer: ${error ? `${error.code}: ${error.message}` : 'no reason given'}`,
        );
      }
      case 'error':
        throw new ProviderError(
          'upstream',
          `${this.provider} reported an error mid-stream: ${event.code ?? 'error'}: ${event.message}`,
        );
    }
  }

  *#arguments(
    call: { index: number; arguments: string },
    fragment: string,
    round: RoundState,
  ): Generator<ChatStreamChunk> {
    call.arguments += fragment;
    yield { toolCallProgress: round.calls.add({ index: call.index, function: { arguments: fragment } }) };
  }

  /**
   * The call's final arguments. A server that sent them only here, or fewer deltas than
   * the whole, gets the rest counted now, so the card ends at the full length.
   */
  *#completed(
    call: { index: number; arguments: string },
    final: string,
    round: RoundState,
  ): Generator<ChatStreamChunk> {
    if (final.length > call.arguments.length && final.startsWith(call.arguments)) {
      yield* this.#arguments(call, final.slice(call.arguments.length), round);
    }
  }

  /** A reasoning item the model can be given back: one with encrypted or readable content. */
  #keepReasoning(item: Extract<ResponseInputItem, { type: 'reasoning' }>, round: RoundState): void {
    if (!item.encrypted_content && !item.content?.length) return;
    round.replay ??= { provider: this.provider, items: [] };
    const { status: _status, ...kept } = item;
    round.replay.items.push(kept);
  }
}

function usageOf(usage: OpenAI.Responses.ResponseUsage | undefined): Usage | undefined {
  if (!usage) return undefined;
  return {
    promptTokens: usage.input_tokens ?? 0,
    completionTokens: usage.output_tokens ?? 0,
    totalTokens: usage.total_tokens ?? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0),
  };
}

/** The conversation as input items, the system prompt as `instructions`. */
export function toResponsesInput(messages: readonly ModelMessage[]): {
  instructions: string;
  input: ResponseInputItem[];
} {
  const instructions: string[] = [];
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        instructions.push(message.content);
        break;
      case 'user':
        input.push({
          role: 'user',
          content: message.images?.length
            ? [
                ...(message.content ? [{ type: 'input_text' as const, text: message.content }] : []),
                ...inputImages(message.images),
              ]
            : message.content,
        });
        break;
      case 'assistant':
        if (message.replay?.provider === OPENAI_RESPONSES) {
          input.push(...(message.replay.items as ResponseInputItem[]));
        }
        if (message.content) input.push({ role: 'assistant', content: message.content });
        for (const call of message.toolCalls ?? []) {
          input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
        }
        break;
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: message.toolCallId,
          output: message.images?.length
            ? [{ type: 'input_text', text: message.content }, ...inputImages(message.images)]
            : message.content,
        });
        break;
    }
  }
  return { instructions: instructions.join('\n\n'), input };
}

/** A message's images as the Responses API takes them: data URLs, the model choosing the detail. */
function inputImages(images: readonly ToolImage[]) {
  return images.map((image) => ({
    type: 'input_image' as const,
    image_url: dataUrl(image),
    detail: 'auto' as const,
  }));
}
