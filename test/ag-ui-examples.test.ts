/**
 * The example agents of examples/ag-ui really speak their protocols: each is started on a
 * free port and read by the official client (AG-UI's HttpAgent; the ai package's
 * readUIMessageStream), every event checked against the official schemas, and a client
 * that goes away stops the run (seen by the agent's own `end` event, never by waiting).
 */
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type AssistantMessage, type ToolMessage } from '@ag-ui/core';
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { startAgent, type ExampleRun, type RunningExample } from '../examples/ag-ui/agent.mjs';
import { startRoute } from '../examples/ag-ui/ai-sdk-route.mjs';
import { plan } from '../examples/ag-ui/agent-script.mjs';
import { recorder } from '../server/test/ag-ui-client.js';

let running: RunningExample | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function agentFor(url: string, question: string): HttpAgent {
  const agent = new HttpAgent({ url, threadId: randomUUID() });
  agent.addMessage({ id: randomUUID(), role: 'user', content: question });
  return agent;
}

describe('examples/ag-ui/agent.mjs', () => {
  test('a weather question: the tool call written in many fragments, its result, then the answer', async () => {
    running = await startAgent({ port: 0, pace: 0 });
    const agent = agentFor(running.url, 'What is the weather in Porto?');
    const { events, subscriber } = recorder();
    await agent.runAgent({ runId: 'run-1' }, subscriber);

    const expected = plan('What is the weather in Porto?');
    const call = agent.messages
      .filter((m): m is AssistantMessage => m.role === 'assistant')
      .flatMap((m) => m.toolCalls ?? [])[0];
    expect(call?.function.name).toBe('get_weather');
    expect(JSON.parse(call!.function.arguments)).toEqual(expected.args);
    const result = agent.messages.find((m): m is ToolMessage => m.role === 'tool');
    expect(result?.toolCallId).toBe(call?.id);
    expect(JSON.parse(result!.content as string)).toEqual(expected.run());
    expect(agent.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: expect.stringContaining('Porto'),
    });

    expect(events[0]?.type).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(events.filter((e) => e.type === EventType.TOOL_CALL_ARGS).length).toBeGreaterThan(20);
  });

  test('a note: the same shape, with a longer call', async () => {
    running = await startAgent({ port: 0, pace: 0 });
    const agent = agentFor(running.url, 'Write a note about our opening hours');
    await agent.runAgent({}, recorder().subscriber);
    const call = (agent.messages.find((m) => m.role === 'assistant') as AssistantMessage).toolCalls?.[0];
    expect(call?.function.name).toBe('write_note');
    expect(JSON.parse(call!.function.arguments).body.length).toBeGreaterThan(500);
  });

  test('Stop: the client aborting its request ends the run where it is', async () => {
    // Fragments a second apart: the abort comes long before the run could end by itself.
    running = await startAgent({ port: 0, pace: 1000 });
    const ended = once(running.runs, 'end') as Promise<[ExampleRun]>;
    const agent = agentFor(running.url, 'Write a note about Stop');
    await agent.runAgent(
      {},
      { onToolCallArgsEvent: () => agent.abortRun(), onEvent: recorder().subscriber.onEvent },
    );
    const [run] = await ended;
    expect(run.outcome).toBe('stopped');
    expect(run.sentFragments).toBeLessThan(run.totalFragments);
  });

  test('a body that is not a RunAgentInput is refused with 400', async () => {
    running = await startAgent({ port: 0, pace: 0 });
    const response = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't', messages: 'hello' }),
    });
    expect(response.status).toBe(400);
  });
});

/** The `data:` payloads of an SSE body, as they come. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) yield data;
    }
  }
}

/** POSTs a chat request as useChat's transport does, and returns the response. */
function ask(url: string, question: string, signal?: AbortSignal): Promise<Response> {
  const messages: UIMessage[] = [
    { id: randomUUID(), role: 'user', parts: [{ type: 'text', text: question }] },
  ];
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chat-1', messages, trigger: 'submit-message' }),
    ...(signal ? { signal } : {}),
  });
}

describe('examples/ag-ui/ai-sdk-route.mjs', () => {
  test('a UI message stream: valid chunks, then [DONE]; the tool part ends output-available', async () => {
    running = await startRoute({ port: 0, pace: 0 });
    const response = await ask(running.url, 'What is the weather in Lisbon?');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toBe('text/event-stream');

    const chunks: UIMessageChunk[] = [];
    let done = false;
    for await (const data of sseData(response.body!)) {
      expect(done).toBe(false); // nothing after [DONE]
      if (data === '[DONE]') {
        done = true;
        continue;
      }
      const checked = await uiMessageChunkSchema().validate!(JSON.parse(data));
      if (!checked.success) throw new Error(`invalid UI message chunk ${data}`);
      chunks.push(checked.value);
    }
    expect(done).toBe(true);
    expect(chunks.filter((c) => c.type === 'tool-input-delta').length).toBeGreaterThan(20);

    let message: UIMessage | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start: (controller) => (chunks.forEach((chunk) => controller.enqueue(chunk)), controller.close()),
    });
    for await (const m of readUIMessageStream({ stream })) message = m;
    const expected = plan('What is the weather in Lisbon?');
    const tool = message?.parts.find((p) => p.type === 'tool-get_weather');
    expect(tool).toMatchObject({ state: 'output-available', input: expected.args, output: expected.run() });
    const text = message?.parts.find((p) => p.type === 'text');
    expect(text).toMatchObject({ type: 'text', text: expect.stringContaining('Lisbon') });
  });

  test('Stop: aborting the request ends the run where it is', async () => {
    running = await startRoute({ port: 0, pace: 1000 });
    const ended = once(running.runs, 'end') as Promise<[ExampleRun]>;
    const abort = new AbortController();
    const response = await ask(running.url, 'Write a note about Stop', abort.signal);
    for await (const data of sseData(response.body!)) if (data.includes('"tool-input-delta"')) break;
    abort.abort();
    const [run] = await ended;
    expect(run.outcome).toBe('stopped');
    expect(run.sentFragments).toBeLessThan(run.totalFragments);
  });

  test('a body that is not a chat request is refused with 400', async () => {
    running = await startRoute({ port: 0, pace: 0 });
    const response = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'x', messages: [{ role: 'user' }] }),
    });
    expect(response.status).toBe(400);
  });
});
