/**
 * Spans for a turn, each model round and each tool call, through `@opentelemetry/api`
 * only: every call is a no-op until the host registers an SDK (server/README.md,
 * "Metrics and tracing"). The tree is turn > round > tool call.
 *
 * Parents are passed explicitly, so the tree holds without a context manager; each span
 * is also made the active context around the work it covers, so that a host's automatic
 * instrumentation (the HTTP request to the provider, a tool's own calls) nests under it
 * when the host's SDK has a context manager.
 *
 * Never a session id in an attribute: it is the key to a conversation. A turn is named
 * by its answer's message id.
 */
import {
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { ChatMessage, Usage } from '@aalis/protocol';

export const TRACER_NAME = '@aalis/server';

/** Span and attribute names (the `gen_ai.*` ones follow OpenTelemetry's GenAI conventions). */
export const SpanName = { turn: 'aalis.turn', round: 'aalis.round', tool: 'aalis.tool' } as const;
export const Attr = {
  messageId: 'aalis.message.id',
  provider: 'gen_ai.provider.name',
  model: 'gen_ai.request.model',
  round: 'aalis.round',
  status: 'aalis.turn.status',
  errorCode: 'aalis.error.code',
  toolCalls: 'aalis.round.tool_calls',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  outcome: 'aalis.tool.outcome',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
} as const;

export type ToolOutcome = 'ok' | 'error' | 'declined';

/** Asked for at each span: a provider registered after the server started is still used. */
const tracer = (): Tracer => trace.getTracer(TRACER_NAME);

function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

const usageAttributes = (usage: Usage): Attributes => ({
  [Attr.inputTokens]: usage.promptTokens,
  [Attr.outputTokens]: usage.completionTokens,
});

interface Scope {
  span: Span;
  context: Context;
}

function open(name: string, attributes: Attributes, parent: Context): Scope {
  const span = tracer().startSpan(name, { attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** One call's span, under the round that asked for it. */
export class ToolTrace {
  readonly #scope: Scope;

  constructor(call: { id: string; name: string }, parent: Context) {
    this.#scope = open(SpanName.tool, { [Attr.toolName]: call.name, [Attr.toolCallId]: call.id }, parent);
  }

  /**
   * Runs the tool inside the span (as the active context), sets its outcome, records an
   * exception, and ends the span whatever happens.
   */
  async run<T>(
    work: () => Promise<T>,
    outcomeOf: (result: T) => Exclude<ToolOutcome, 'declined'>,
  ): Promise<T> {
    const { span } = this.#scope;
    try {
      const result = await context.with(this.#scope.context, work);
      const outcome = outcomeOf(result);
      span.setAttribute(Attr.outcome, outcome);
      if (outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool failed' });
      return result;
    } catch (error) {
      span.setAttribute(Attr.outcome, 'error');
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** A call that never ran (declined, expired, or the turn stopped first): a span of no length. */
  notRun(outcome: Exclude<ToolOutcome, 'ok'>): void {
    this.#scope.span.setAttribute(Attr.outcome, outcome);
    this.#scope.span.end();
  }
}

/**
 * A turn's spans. `round(n)` opens a round (ending the one before); a round covers the
 * model's answer and the tools it asked for. `end()` (in a `finally`) ends what is open.
 */
export class TurnTrace {
  readonly #turn: Scope;
  #round: Scope | undefined;

  constructor(attributes: { messageId: string; provider: string; model: string }) {
    this.#turn = open(
      SpanName.turn,
      {
        [Attr.messageId]: attributes.messageId,
        [Attr.provider]: attributes.provider,
        [Attr.model]: attributes.model,
      },
      context.active(),
    );
  }

  round(round: number): void {
    this.#round?.span.end();
    this.#round = open(SpanName.round, { [Attr.round]: round }, this.#turn.context);
  }

  /**
   * The model's stream for the current round, read inside the round's span: it sets the
   * round's token counts and number of tool calls from the chunks as they pass.
   */
  async *stream<T extends { usage?: Usage; toolCalls?: readonly unknown[] }>(
    chunks: AsyncIterable<T>,
  ): AsyncGenerator<T> {
    const scope = this.#round ?? this.#turn;
    const iterator = chunks[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await context.with(scope.context, () => iterator.next());
        if (next.done) return;
        if (next.value.usage) scope.span.setAttributes(usageAttributes(next.value.usage));
        if (next.value.toolCalls) scope.span.setAttribute(Attr.toolCalls, next.value.toolCalls.length);
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }

  /** A span for one tool call, under the current round. */
  tool(call: { id: string; name: string }): ToolTrace {
    return new ToolTrace(call, (this.#round ?? this.#turn).context);
  }

  /** The turn's outcome: status, summed tokens, the error's code. Returns what it is given. */
  finish<T extends { message: ChatMessage }>(result: T): T {
    const { span } = this.#turn;
    const { message } = result;
    if (message.status) span.setAttribute(Attr.status, message.status);
    if (message.usage) span.setAttributes(usageAttributes(message.usage));
    if (message.error) {
      span.setAttribute(Attr.errorCode, message.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: message.error.code });
    }
    return result;
  }

  /** An exception ended the turn: recorded on the open round and on the turn. */
  fail(error: unknown): void {
    if (this.#round) recordFailure(this.#round.span, error);
    recordFailure(this.#turn.span, error);
  }

  /** Ends the open round, then the turn. Call it in a `finally`. */
  end(): void {
    this.#round?.span.end();
    this.#round = undefined;
    this.#turn.span.end();
  }
}
