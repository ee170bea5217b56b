/**
 * Chat Completions over the `openai` SDK, for OpenAI and every compatible server
 * (DeepSeek, the demo model, local gateways). Uses the raw `create({ stream: true })`
 * iterator, which tolerates what the `.stream()` helper rejects (no `role`, no
 * `finish_reason` on some chunks), and turns every tool-call fragment into a progress
 * chunk the moment it arrives.
 */
import OpenAI from 'openai';
import type { ChatStreamChunk, Usage } from '@aalis/protocol';
import { ProviderError, abortedError, errorForStatus, parseRetryAfter } from './errors.js';
import type { RetryPolicy } from './retry.js';
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  streamRound,
  type RoundState,
  type UpstreamTimeouts,
} from './round-stream.js';
import type { ToolCallFragment } from './tool-call-accumulator.js';
import type { ChatProvider, ChatRequest, ChatStreamOptions, ModelMessage } from './types.js';

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
    this.#client = new OpenAI({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      // Retries are ours, and only before the first byte (see retry.ts); so is the
      // first-byte deadline (round-stream.ts): the SDK's is only a backstop behind it.
      maxRetries: 0,
      timeout: (options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS) + 5_000,
      logLevel: 'off',
    });
  }

  chatStream(request: ChatRequest, options: ChatStreamOptions = {}): AsyncGenerator<ChatStreamChunk> {
    const { retry, firstByteTimeoutMs, idleTimeoutMs } = this.#options;
    return streamRound(
      this.name,
      {
        open: (abort) => this.#create(request, abort),
        read: readChunk,
        classify: (error) => this.#midStreamError(error),
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
      throw this.#requestError(error, signal);
    }
  }

  #requestError(error: unknown, signal: AbortSignal): ProviderError {
    if (error instanceof ProviderError) return error;
    if (signal.aborted || error instanceof OpenAI.APIUserAbortError) return abortedError(this.name);
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      return new ProviderError('timeout', `${this.name} did not answer in time`, {
        retryable: true,
        cause: error,
      });
    }
    if (error instanceof OpenAI.APIConnectionError) {
      return new ProviderError('upstream', `could not reach ${this.name}: ${error.message}`, {
        retryable: true,
        cause: error,
      });
    }
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const detail = (error.error as { message?: string } | undefined)?.message ?? '';
      return errorForStatus(
        this.name,
        error.status,
        detail,
        parseRetryAfter(error.headers?.get('retry-after')),
      );
    }
    return new ProviderError('upstream', `${this.name} request failed: ${String(error)}`, { cause: error });
  }

  #midStreamError(error: unknown): ProviderError | undefined {
    if (error instanceof SyntaxError) {
      return new ProviderError('bad_response', `${this.name} sent a stream chunk that is not valid JSON`, {
        cause: error,
      });
    }
    if (error instanceof OpenAI.APIError) {
      // An `error` object inside the stream: the provider gave up mid-answer.
      return new ProviderError('upstream', `${this.name} reported an error mid-stream: ${error.message}`, {
        cause: error,
      });
    }
    return undefined;
  }
}

/** One SSE chunk: reasoning, text and a progress chunk per tool-call fragment. */
function* readChunk(chunk: OpenAI.ChatCompletionChunk, round: RoundState): Generator<ChatStreamChunk> {
  if (chunk.usage) round.usage = mapUsage(chunk.usage);
  // Chunks with empty `choices` carry usage or content-filter results only.
  const choice = chunk.choices?.[0];
  if (!choice) return;
  const delta = (choice.delta ?? {}) as CompatibleDelta;
  if (delta.reasoning_content) yield { reasoningDelta: delta.reasoning_content };
  if (delta.content) yield { contentDelta: delta.content };
  for (const fragment of delta.tool_calls ?? []) yield { toolCallProgress: round.calls.add(fragment) };
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
    case 'user':
      return { role: message.role, content: message.content };
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
