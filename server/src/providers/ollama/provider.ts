/**
 * Ollama's native `/api/chat` with NDJSON streaming, over plain fetch. Ollama returns
 * each tool call whole, with `arguments` as an object: each becomes one progress chunk
 * carrying the length of its JSON, then the final chunk. `message.thinking` becomes
 * `reasoningDelta`.
 */
import type { ChatStreamChunk } from '@aalis/protocol';
import { ProviderError, abortedError, errorForStatus, parseRetryAfter } from '../core/errors.js';
import type { RetryPolicy } from '../core/retry.js';
import { streamRound, type RoundState, type UpstreamTimeouts } from '../core/round-stream.js';
import type {
  ChatProvider,
  ChatRequest,
  ChatStreamOptions,
  ModelMessage,
  ProviderChunk,
} from '../core/types.js';

export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';
const DEFAULT_MAX_LINE_CHARS = 8 * 1024 * 1024;

export interface OllamaProviderOptions extends UpstreamTimeouts {
  host?: string;
  retry?: RetryPolicy;
  /**
   * Longest NDJSON line accepted, in characters (8 Mi by default, 8 MiB of ASCII): a
   * longer one ends the round as `too_large` rather than growing without bound.
   */
  maxLineChars?: number;
}

interface OllamaLine {
  message?: {
    content?: string;
    thinking?: string;
    tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: unknown } }>;
  };
  done?: boolean;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

export class OllamaProvider implements ChatProvider {
  readonly name = 'ollama';
  readonly #host: string;

  constructor(private readonly options: OllamaProviderOptions = {}) {
    this.#host = (options.host ?? OLLAMA_DEFAULT_HOST).replace(/\/+$/, '');
  }

  chatStream(request: ChatRequest, options: ChatStreamOptions = {}): AsyncGenerator<ProviderChunk> {
    const { retry, firstByteTimeoutMs, idleTimeoutMs } = this.options;
    return streamRound(
      this.name,
      {
        open: async (abort) => {
          const response = await this.#post(request, abort);
          return ndjsonLines(response.body!, this.options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS);
        },
        read: readLine,
      },
      { ...options, retry, firstByteTimeoutMs, idleTimeoutMs },
    );
  }

  async #post(request: ChatRequest, signal: AbortSignal): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.#host}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: request.model,
          messages: request.messages.map(toOllamaMessage),
          ...(request.tools.length
            ? {
                tools: request.tools.map((t) => ({
                  type: 'function',
                  function: { name: t.name, description: t.description, parameters: t.parameters },
                })),
              }
            : {}),
          stream: true,
        }),
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw abortedError(this.name);
      throw new ProviderError(
        'upstream',
        `could not reach ollama at ${this.#host}: ${(error as Error).message}`,
        {
          retryable: true,
          cause: error,
        },
      );
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      const detail = (safeJson(text) as { error?: string } | undefined)?.error ?? text;
      throw errorForStatus(
        this.name,
        response.status,
        detail,
        parseRetryAfter(response.headers.get('retry-after')),
      );
    }
    return response;
  }
}

/** One NDJSON line: thinking, text, and one progress chunk per whole tool call. */
function* readLine(line: string, round: RoundState): Generator<ChatStreamChunk> {
  const parsed = parseLine(line);
  if (parsed.error) throw new ProviderError('upstream', `ollama reported an error: ${parsed.error}`);
  const message = parsed.message ?? {};
  if (message.thinking) yield { reasoningDelta: message.thinking };
  if (message.content) yield { contentDelta: message.content };
  for (const call of message.tool_calls ?? []) {
    const args = call.function?.arguments ?? {};
    yield {
      toolCallProgress: round.calls.add({
        index: round.calls.size,
        id: call.id ?? null,
        function: {
          name: call.function?.name ?? '',
          arguments: typeof args === 'string' ? args : JSON.stringify(args),
        },
      }),
    };
  }
  if (parsed.done) {
    round.finished = true;
    const prompt = parsed.prompt_eval_count ?? 0;
    const completion = parsed.eval_count ?? 0;
    round.usage = { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion };
  }
}

function parseLine(line: string): OllamaLine {
  const parsed = safeJson(line);
  if (typeof parsed !== 'object' || parsed === null) {
    throw new ProviderError('bad_response', 'ollama sent a stream line that is not a JSON object');
  }
  return parsed as OllamaLine;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Splits a byte stream into its non-empty lines, bounded in length. */
async function* ndjsonLines(body: ReadableStream<Uint8Array>, maxLineChars: number): AsyncGenerator<string> {
  const tooLong = () =>
    new ProviderError('too_large', `ollama sent a line longer than ${maxLineChars} characters`);
  const decoder = new TextDecoder();
  let buffered = '';
  /** How much of `buffered` is known to hold no newline: a long line is searched once. */
  let scanned = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n', scanned)) >= 0) {
      if (newline > maxLineChars) throw tooLong();
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      scanned = 0;
      if (line) yield line;
    }
    // A line still without its end is refused as soon as it is too long, not read on.
    scanned = buffered.length;
    if (scanned > maxLineChars) throw tooLong();
  }
  const last = (buffered + decoder.decode()).trim();
  if (last.length > maxLineChars) throw tooLong();
  if (last) yield last;
}

function toOllamaMessage(message: ModelMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      // Ollama's own API takes a message's images as base64, beside its text.
      return {
        role: 'user',
        content: message.content,
        ...(message.images?.length ? { images: message.images.map((image) => image.data) } : {}),
      };
    case 'tool':
      return { role: 'tool', content: message.content, tool_name: message.name };
    case 'assistant': {
      const out: Record<string, unknown> = { role: 'assistant', content: message.content };
      if (message.reasoning) out.thinking = message.reasoning;
      if (message.toolCalls?.length) {
        out.tool_calls = message.toolCalls.map((call) => ({
          function: { name: call.name, arguments: safeJson(call.arguments) ?? {} },
        }));
      }
      return out;
    }
  }
}
