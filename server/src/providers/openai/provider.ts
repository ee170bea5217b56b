/**
 * Chat Completions over the `openai` SDK, for OpenAI and every compatible server
 * (DeepSeek, the demo model, local gateways). Uses the raw `create({ stream: true })`
 * iterator, which tolerates what the `.stream()` helper rejects (no `role`, no
 * `finish_reason` on some chunks), and turns every tool-call fragment into a progress
 * chunk the moment it arrives.
 */
import type OpenAI from 'openai';
import type { ChatStreamChunk, Usage } from '@aalis/protocol';
import { createOpenAIClient, openAIMidStreamError, openAIRequestError } from './client.js';
import { outputLimitError } from '../core/errors.js';
import type { RetryPolicy } from '../core/retry.js';
import { streamRound, type RoundState, type UpstreamTimeouts } from '../core/round-stream.js';
import type { ToolCallFragment } from '../core/tool-call-accumulator.js';
import {
  dataUrl,
  type ChatProvider,
  type ChatRequest,
  type ChatStreamOptions,
  type ModelMessage,
  type ProviderChunk,
} from '../core/types.js';

export interface OpenAIProviderOptions extends UpstreamTimeouts {
  /** Shown in logs and error messages. */
  name?: string;
  apiKey: string;
  baseURL?: string;
  retry?: RetryPolicy;
  /**
   * Send an assistant message's reasoning back with its tool calls as
   * `reasoning_content` (DeepSeek answers 400 without it).
   */
  sendReasoningBack?: boolean;
}

/** The fields of a streamed delta that compatible servers add to OpenAI's. */
interface CompatibleDelta {
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: ToolCallFragment[] | null;
}

export class OpenAIProvider implements ChatProvider {
  readonly name: string;
  readonly #client: OpenAI;
  readonly #options: OpenAIProviderOptions;

  constructor(options: OpenAIProviderOptions) {
    this.name = options.name ?? 'openai';
    this.#options = options;
    this.#client = createOpenAIClient(options);
  }

  chatStream(request: ChatRequest, options: ChatStreamOptions = {}): AsyncGenerator<ProviderChunk> {
    const { retry, firstByteTimeoutMs, idleTimeoutMs } = this.#options;
    return streamRound(
      this.name,
      {
        open: (abort) => this.#create(request, abort),
        read: (chunk, round) => readChunk(this.name, chunk, round),
        classify: (error) => openAIMidStreamError(this.name, error),
      },
      { ...options, retry, firstByteTimeoutMs, idleTimeoutMs },
    );
  }

  async #create(request: ChatRequest, signal: AbortSignal) {
    try {
      return await this.#client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages.map((m) => toOpenAIMessage(m, this.#options.sendReasoningBack ?? false)),
          ...(request.tools.length
            ? {
                tools: request.tools.map((tool) => ({
                  type: 'function' as const,
                  function: { name: tool.name, description: tool.description, parameters: tool.parameters },
                })),
              }
            : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      );
    } catch (error) {
      throw openAIRequestError(this.name, error, signal);
    }
  }
}

/**
 * One SSE chunk: reasoning, text and a progress chunk per tool-call fragment. A round
 * that ran out of tokens (`length`) while writing tool calls is cut off: no call runs.
 */
function* readChunk(
  provider: string,
  chunk: OpenAI.ChatCompletionChunk,
  round: RoundState,
): Generator<ChatStreamChunk> {
  if (chunk.usage) round.usage = mapUsage(chunk.usage);
  // Chunks with empty `choices` carry usage or content-filter results only.
  const choice = chunk.choices?.[0];
  if (!choice) return;
  const delta = (choice.delta ?? {}) as CompatibleDelta;
  if (delta.reasoning_content) yield { reasoningDelta: delta.reasoning_content };
  if (delta.content) yield { contentDelta: delta.content };
  for (const fragment of delta.tool_calls ?? []) yield { toolCallProgress: round.calls.add(fragment) };
  if (choice.finish_reason === 'length' && round.calls.size) throw outputLimitError(provider, 'length');
  if (choice.finish_reason) round.finished = true;
}

function mapUsage(usage: OpenAI.CompletionUsage): Usage {
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    totalTokens: usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
  };
}

function toOpenAIMessage(
  message: ModelMessage,
  sendReasoningBack: boolean,
): OpenAI.ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      // Images go as `image_url` parts with data URLs, after the question's text.
      return message.images?.length
        ? {
            role: 'user',
            content: [
              ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
              ...message.images.map((image) => ({
                type: 'image_url' as const,
                image_url: { url: dataUrl(image) },
              })),
            ],
          }
        : { role: 'user', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      const out: OpenAI.ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
        role: 'assistant',
        content: message.content || (calls.length ? null : ''),
      };
      if (calls.length) {
        out.tool_calls = calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        }));
        if (sendReasoningBack && message.reasoning) out.reasoning_content = message.reasoning;
      }
      return out;
    }
  }
}
