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

/** A message of the conversation sent to the model, earlier tool calls and results included. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      /** What the model reasoned before answering; DeepSeek wants it back with tool calls. */
      reasoning?: string;
      toolCalls?: ToolCall[];
    }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

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
  /** For logs and the start-up line: `openai`, `deepseek`, `ollama`, `demo`. */
  readonly name: string;
  chatStream(request: ChatRequest, options?: ChatStreamOptions): AsyncIterable<ChatStreamChunk>;
}
