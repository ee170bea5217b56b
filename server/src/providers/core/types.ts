/**
 * The one interface every LLM provider implements, and the provider-neutral request
 * it takes. Each provider maps these to its own wire format.
 */
import type { ChatStreamChunk, ToolCall, TurnStatus } from '@aalis/protocol';

/** A tool as the model sees it: JSON Schema parameters. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * What a provider must be given back with a model round on the next request, exactly as
 * it came: Anthropic's thinking blocks with their signatures (and redacted thinking), the
 * Responses API's reasoning items with their encrypted content. Opaque to everyone but
 * the provider named, kept with the stored message, and never sent to a client.
 */
export interface RoundReplay {
  /** The provider that understands `items` (`anthropic`, `openai-responses`). */
  provider: string;
  items: unknown[];
}

/** An image a tool returned, for the providers whose tool results can carry one. */
export interface ToolImage {
  mimeType: string;
  /** Base64. */
  data: string;
}

/** An image as a data URL: how Chat Completions and the Responses API take one inline. */
export const dataUrl = (image: ToolImage): string => `data:${image.mimeType};base64,${image.data}`;

/** A message of the conversation sent to the model, earlier tool calls and results included. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content: string;
      /** Images the visitor attached to the question, in order (only for a model that reads images). */
      images?: ToolImage[];
    }
  | {
      role: 'assistant';
      content: string;
      /** What the model reasoned before answering; DeepSeek wants it back with tool calls. */
      reasoning?: string;
      toolCalls?: ToolCall[];
      /** What the provider gave to be sent back with this round (see RoundReplay). */
      replay?: RoundReplay;
    }
  | {
      role: 'tool';
      toolCallId: string;
      name: string;
      /** The result as text; images are only described in it. */
      content: string;
      /** The images of the result, for providers that can show them to the model. */
      images?: ToolImage[];
      /** The call failed, was declined or never finished (the content says which). */
      isError?: boolean;
    };

/** What a provider yields: a protocol chunk, and with `done`, what to send back next time. */
export type ProviderChunk = ChatStreamChunk & { replay?: RoundReplay };

export interface ChatRequest {
  model: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
}

export interface ChatStreamOptions {
  /** Aborts the HTTP request and ends the stream with a `ProviderError` of kind `aborted`. */
  signal?: AbortSignal | undefined;
  /**
   * Hears why nothing streams, to tell the visitor: the model has been silent for
   * `waitingNoticeMs` (`waiting`), or a failed request is about to be tried again
   * (`retrying`, with the wait).
   */
  onStatus?: ((status: TurnStatus) => void) | undefined;
  waitingNoticeMs?: number | undefined;
}

/**
 * A model behind some API. `chatStream` yields chunks as they arrive: a progress chunk
 * for every tool-call fragment, and last a chunk with `done: true` and the round's
 * complete tool calls. A round that does not complete (cut off, broken, aborted) throws
 * a `ProviderError` instead of yielding `done`, so its tool calls are never executed.
 */
export interface ChatProvider {
  /** For logs and the start-up line: `openai`, `openai-responses`, `anthropic`, `deepseek`, `ollama`, `demo`. */
  readonly name: string;
  chatStream(request: ChatRequest, options?: ChatStreamOptions): AsyncIterable<ProviderChunk>;
}
