/**
 * Anthropic's Messages API over `@anthropic-ai/sdk`, streamed. Every content block is
 * read as it comes: a `tool_use` block's start gives its card at once (name, 0 chars),
 * each `input_json_delta` is a progress chunk with the absolute length, text and thinking
 * deltas are text and reasoning. Thinking blocks, with their signatures, and redacted
 * thinking are handed back with the round (`replay`): Anthropic requires them, unchanged,
 * with the tool results of the next request.
 *
 * A round is complete only at `message_stop` after a `stop_reason`. Running out of
 * tokens (`max_tokens`) in a message with tool calls is a cut-off: the last call is
 * unfinished JSON, and no call of it runs.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
  ThinkingConfigParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatStreamChunk, Usage } from '@aalis/protocol';
import { outputLimitError } from '../core/errors.js';
import { midStreamError, requestError } from './errors.js';
import { ANTHROPIC, toAnthropicMessages } from './messages.js';
import type { RetryPolicy } from '../core/retry.js';
import { streamRound, type RoundState, type UpstreamTimeouts } from '../core/round-stream.js';
import type { ChatProvider, ChatRequest, ChatStreamOptions, ProviderChunk } from '../core/types.js';
import { sdkClientOptions } from '../core/sdk-client.js';

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/** Extended thinking: off, a budget of tokens, or as much as the model decides (newer models). */
export type AnthropicThinking = { type: 'budget'; budgetTokens: number } | { type: 'adaptive' };

export interface AnthropicProviderOptions extends UpstreamTimeouts {
  apiKey: string;
  baseURL?: string;
  retry?: RetryPolicy;
  /** Longest answer of one round, in tokens; Anthropic requires one. */
  maxTokens?: number;
  thinking?: AnthropicThinking;
}

export class AnthropicProvider implements ChatProvider {
  readonly name = ANTHROPIC;
  readonly #client: Anthropic;
  readonly #options: AnthropicProviderOptions;

  constructor(options: AnthropicProviderOptions) {
    this.#options = options;
    this.#client = new Anthropic(sdkClientOptions(options));
  }

  chatStream(request: ChatRequest, options: ChatStreamOptions = {}): AsyncGenerator<ProviderChunk> {
    const { retry, firstByteTimeoutMs, idleTimeoutMs } = this.#options;
    const message = new MessageReader(this.name, this.#options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS);
    return streamRound(
      this.name,
      {
        open: (abort) => this.#open(request, abort),
        read: (event, round) => message.read(event, round),
        finish: (round) => message.finish(round),
        classify: (error) => midStreamError(this.name, error),
      },
      { ...options, retry, firstByteTimeoutMs, idleTimeoutMs },
    );
  }

  /**
   * Opens the stream and reads up to its first content. Anthropic may accept the request
   * and then say `overloaded_error` as an event, before or just after `message_start`:
   * nothing was shown yet, so it is retried like an HTTP 529 would be.
   */
  async #open(request: ChatRequest, signal: AbortSignal): Promise<AsyncIterable<RawMessageStreamEvent>> {
    let events: AsyncIterator<RawMessageStreamEvent>;
    const leading: RawMessageStreamEvent[] = [];
    try {
      const stream = await this.#client.messages.create(this.#body(request), { signal });
      events = stream[Symbol.asyncIterator]();
      for (;;) {
        const next = await events.next();
        if (next.done) break;
        leading.push(next.value);
        if (next.value.type !== 'message_start') break;
      }
    } catch (error) {
      throw requestError(this.name, error, signal);
    }
    return {
      async *[Symbol.asyncIterator]() {
        yield* leading;
        yield* { [Symbol.asyncIterator]: () => events };
      },
    };
  }

  #body(request: ChatRequest): MessageCreateParamsStreaming {
    const { system, messages } = toAnthropicMessages(request.messages);
    const thinking = thinkingParam(this.#options.thinking);
    return {
      model: request.model,
      max_tokens: this.#options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      ...(system ? { system } : {}),
      messages,
      ...(request.tools.length
        ? {
            tools: request.tools.map((tool) => ({
              name: tool.name,
              description: tool.description,
              input_schema: tool.parameters as { type: 'object'; [key: string]: unknown },
            })),
          }
        : {}),
      ...(thinking ? { thinking } : {}),
      stream: true,
    };
  }
}

function thinkingParam(thinking: AnthropicThinking | undefined): ThinkingConfigParam | undefined {
  if (!thinking) return undefined;
  return thinking.type === 'adaptive'
    ? { type: 'adaptive' }
    : { type: 'enabled', budget_tokens: thinking.budgetTokens };
}

/** What one content block of the streamed message is, as far as this reader cares. */
type Block =
  | { kind: 'text' }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; index: number }
  /** Server tools and anything newer: shown nowhere, sent back never. */
  | { kind: 'other' };

/** Reads one streamed message, event by event, into chunks and the round's state. */
class MessageReader {
  readonly #blocks = new Map<number, Block>();
  #tools = 0;
  #stopReason: string | undefined;
  #usage = { input: 0, output: 0 };

  constructor(
    private readonly provider: string,
    private readonly maxTokens: number,
  ) {}

  *read(event: RawMessageStreamEvent, round: RoundState): Generator<ChatStreamChunk> {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.#usage.input =
          (usage.input_tokens ?? 0) +
          (usage.cache_creation_input_tokens ?? 0) +
          (usage.cache_read_input_tokens ?? 0);
        this.#usage.output = usage.output_tokens ?? 0;
        break;
      }
      case 'content_block_start':
        yield* this.#start(event.index, event.content_block, round);
        break;
      case 'content_block_delta':
        yield* this.#delta(event.index, event.delta, round);
        break;
      case 'content_block_stop':
        this.#stop(event.index, round);
        break;
      case 'message_delta':
        if (event.delta.stop_reason) this.#stopReason = event.delta.stop_reason;
        if (typeof event.usage.output_tokens === 'number') this.#usage.output = event.usage.output_tokens;
        round.usage = this.#roundUsage();
        break;
      case 'message_stop':
        // Complete only when the model said why it stopped.
        if (this.#stopReason) round.finished = true;
        break;
    }
  }

  /** At the round's end: a message cut at max_tokens that was writing a tool call never runs it. */
  finish(round: RoundState): void {
    round.usage ??= this.#roundUsage();
    if (this.#stopReason === 'max_tokens' && this.#tools > 0) {
      throw outputLimitError(this.provider, `max_tokens ${this.maxTokens}`);
    }
  }

  *#start(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: 'content_block_start' }>['content_block'],
    round: RoundState,
  ): Generator<ChatStreamChunk> {
    switch (block.type) {
      case 'text':
        this.#blocks.set(index, { kind: 'text' });
        if (block.text) yield { contentDelta: block.text };
        return;
      case 'thinking':
        this.#blocks.set(index, { kind: 'thinking', thinking: block.thinking, signature: block.signature });
        if (block.thinking) yield { reasoningDelta: block.thinking };
        return;
      case 'redacted_thinking':
        this.#blocks.set(index, { kind: 'redacted', data: block.data });
        return;
      case 'tool_use': {
        const tool = this.#tools++;
        this.#blocks.set(index, { kind: 'tool', index: tool });
        // The card appears now, before a character of the input has streamed.
        yield {
          toolCallProgress: round.calls.add({ index: tool, id: block.id, function: { name: block.name } }),
        };
        return;
      }
      default:
        this.#blocks.set(index, { kind: 'other' });
    }
  }

  *#delta(
    index: number,
    delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta'],
    round: RoundState,
  ): Generator<ChatStreamChunk> {
    const block = this.#blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        if (delta.text) yield { contentDelta: delta.text };
        return;
      case 'thinking_delta':
        if (block?.kind === 'thinking') block.thinking += delta.thinking;
        if (delta.thinking) yield { reasoningDelta: delta.thinking };
        return;
      case 'signature_delta':
        if (block?.kind === 'thinking') block.signature += delta.signature;
        return;
      case 'input_json_delta':
        if (block?.kind === 'tool' && delta.partial_json) {
          yield {
            toolCallProgress: round.calls.add({
              index: block.index,
              function: { arguments: delta.partial_json },
            }),
          };
        }
        return;
    }
  }

  /** A finished thinking block goes back with the round, as it came. */
  #stop(index: number, round: RoundState): void {
    const block = this.#blocks.get(index);
    if (block?.kind !== 'thinking' && block?.kind !== 'redacted') return;
    round.replay ??= { provider: this.provider, items: [] };
    round.replay.items.push(
      block.kind === 'thinking'
        ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
        : { type: 'redacted_thinking', data: block.data },
    );
  }

  #roundUsage(): Usage {
    const { input, output } = this.#usage;
    return { promptTokens: input, completionTokens: output, totalTokens: input + output };
  }
}
