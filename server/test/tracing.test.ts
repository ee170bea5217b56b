import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Attr, SpanName, TRACER_NAME } from '../src/agent/tracing.js';
import { fixture, type Reply } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
});
afterAll(async () => {
  // Leave no provider behind for other test files in the same worker.
  trace.disable();
  await provider.shutdown();
});

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  exporter.reset();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const MS = 1_000_000n;
const ns = ([seconds, nanos]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(nanos);

async function oneTurn(replies: Reply[]) {
  server = await startServer({ replies });
  const client = await server.connect();
  const { sessionId } = await client.hello();
  client.send({ type: 'send', text: 'Weather in Paris and Tokyo?' });
  const { message } = await client.turnEnd();
  // The turn span ends in a finally, just after the answer is built.
  await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === SpanName.turn)).toBe(true);
  return { sessionId, message, spans: exporter.getFinishedSpans() };
}

describe('spans of a turn', () => {
  test('one turn span, a round span per model round, a tool span per call, parented, without the session id', async () => {
    const { sessionId, message, spans } = await oneTurn([
      { body: fixture('openai-parallel-tool-calls.sse') },
      { body: fixture('openai-text-answer.sse') },
    ]);
    expect(new Set(spans.map((s) => s.instrumentationScope.name))).toEqual(new Set([TRACER_NAME]));

    const turns = spans.filter((s) => s.name === SpanName.turn);
    expect(turns).toHaveLength(1);
    const turn = turns[0]!;
    expect(parentOf(turn)).toBeUndefined();
    expect(turn.attributes).toMatchObject({
      [Attr.messageId]: message.id,
      [Attr.provider]: 'openai',
      [Attr.model]: 'test-model',
      [Attr.status]: 'complete',
      // Summed over both rounds, as the answer's usage.
      [Attr.inputTokens]: 276,
      [Attr.outputTokens]: 93,
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);

    const rounds = spans.filter((s) => s.name === SpanName.round);
    expect(rounds.map((r) => r.attributes[Attr.round])).toEqual([1, 2]);
    for (const round of rounds) expect(parentOf(round)).toBe(idOf(turn));
    expect(rounds[0]!.attributes).toMatchObject({
      [Attr.toolCalls]: 2,
      [Attr.inputTokens]: 96,
      [Attr.outputTokens]: 52,
    });
    expect(rounds[1]!.attributes).toMatchObject({ [Attr.inputTokens]: 180, [Attr.outputTokens]: 41 });

    const tools = spans.filter((s) => s.name === SpanName.tool);
    expect(tools).toHaveLength(2);
    for (const tool of tools) {
      expect(parentOf(tool)).toBe(idOf(rounds[0]!));
      expect(tool.attributes).toMatchObject({ [Attr.toolName]: 'get_weather', [Attr.outcome]: 'ok' });
    }
    expect(tools.map((t) => t.attributes[Attr.toolCallId]).sort()).toEqual(['call_Hk3Lm2', 'call_Wq1Zr8']);
    // Each tool ran inside its round, and the round inside the turn.
    // (Within a millisecond: the SDK's timestamps come from floats, not strictly monotonic.)
    const within = (inner: ReadableSpan, outer: ReadableSpan) =>
      ns(inner.startTime) + MS >= ns(outer.startTime) && ns(inner.endTime) <= ns(outer.endTime) + MS;
    for (const tool of tools) expect(within(tool, rounds[0]!)).toBe(true);
    for (const round of rounds) expect(within(round, turn)).toBe(true);
    expect(spans).toHaveLength(5);

    // The session id is the key to the conversation: in no attribute, name or event.
    const everything = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    );
    expect(everything).not.toContain(sessionId);
  });

  test('a failed model request: the exception recorded on the round and the turn, both in error', async () => {
    const { spans } = await oneTurn([
      { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) },
    ]);
    const turn = spans.find((s) => s.name === SpanName.turn)!;
    const rounds = spans.filter((s) => s.name === SpanName.round);
    expect(rounds).toHaveLength(1);
    for (const span of [turn, rounds[0]!]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
      expect(span.events[0]!.attributes?.['exception.type']).toBe('ProviderError');
    }
    expect(turn.attributes).toMatchObject({ [Attr.status]: 'error', [Attr.errorCode]: 'upstream' });
    expect(spans.filter((s) => s.name === SpanName.tool)).toEqual([]);
  });
});
