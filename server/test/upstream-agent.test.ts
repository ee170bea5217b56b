/**
 * Upstream agents answer turns (issue 33): recorded AG-UI and AI SDK runs served by a fake
 * agent, the real server in front of it, real sockets. What a visitor notices: cards whose
 * count rises while the agent's model writes a call, the call running then done with its
 * result, the answer stored whole and sent back on the next run, usage counted.
 */
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { StreamResumeFrame, ToolCallPart } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { recorder, until, userMessage } from './ag-ui-client.js';
import { Feed, sse } from './fake-upstream.js';
import {
  ask,
  cardCounts,
  framesOf,
  recorded,
  startAgentServer,
  type AgentHarness,
} from './upstream-agent-helpers.js';

let running: AgentHarness | undefined;
afterEach(async () => {
  await running?.harness.close();
  await running?.upstream.close();
  running = undefined;
});

const toolCalls = (parts: readonly { type: string }[]) =>
  parts.filter((p): p is ToolCallPart => p.type === 'tool_call');

describe('an AG-UI agent', () => {
  test('a LangGraph run: text, two calls written as live cards, run, their results, text; stored whole; sent back next run', async () => {
    running = await startAgentServer('ag-ui', [
      recorded('ag-ui', 'langgraph-weather'),
      recorded('ag-ui', 'mastra-chunks'),
    ]);
    const client = await running.harness.connect();
    const { sessionId } = await client.hello();
    const frames = await ask(client, 'Weather in Paris and Tokyo?');

    // What the agent was asked: a valid RunAgentInput, the session as its thread.
    const first = await running.upstream.request(0);
    expect(first.path).toBe('/agent');
    expect(first.headers.accept).toBe('text/event-stream');
    expect(first.headers.authorization).toBe('Bearer agent-token');
    const input = RunAgentInputSchema.parse(first.body);
    expect(input).toMatchObject({
      threadId: sessionId,
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(input.messages).toEqual([
      expect.objectContaining({ role: 'user', content: 'Weather in Paris and Tokyo?' }),
    ]);

    // Each call's card appears at 0 and rises with every fragment, indexes 0 and 1.
    const counts = cardCounts(frames);
    expect(counts.get('call_Qm3xParis')).toEqual([0, 7, 13, 36]);
    expect(counts.get('call_Zk8Tokyo')).toEqual([0, 12, 36]);
    const indexes = framesOf(frames, 'stream').flatMap((f) =>
      f.toolCallProgress ? [f.toolCallProgress] : [],
    );
    expect(new Set(indexes.map((p) => `${p.callId}:${p.index}`))).toEqual(
      new Set(['call_Qm3xParis:0', 'call_Zk8Tokyo:1']),
    );
    // A WebSocket tab never gets the fragments' text: the arguments come once, with start.
    expect(indexes.every((p) => p.argumentsDelta === undefined)).toBe(true);

    // The round's end clears the cards, then both run, in index order, then their results.
    const at = (match: (f: (typeof frames)[number]) => boolean) => frames.findIndex(match);
    const done = at((f) => f.type === 'stream' && f.done === true);
    const starts = framesOf(frames, 'tool_execute').filter((f) => f.phase === 'start');
    const ends = framesOf(frames, 'tool_execute').filter((f) => f.phase === 'end');
    expect(starts.map((s) => [s.callId, s.index, s.name, s.arguments])).toEqual([
      ['call_Qm3xParis', 0, 'get_weather', '{"city": "Paris", "unit": "celsius"}'],
      ['call_Zk8Tokyo', 1, 'get_weather', '{"city": "Tokyo", "unit": "celsius"}'],
    ]);
    expect(starts.every((s) => typeof s.writingMs === 'number')).toBe(true);
    expect(done).toBeLessThan(frames.indexOf(starts[0]!));
    expect(ends.map((e) => [e.callId, e.isError, e.result])).toEqual([
      ['call_Qm3xParis', false, '{"city": "Paris", "temperature": 18, "conditions": "cloudy"}'],
      ['call_Zk8Tokyo', false, '{"city": "Tokyo", "temperature": 24, "conditions": "sunny"}'],
    ]);

    // The answer: text, both calls done with arguments and results, text, the agent's usage.
    const answer = client.view.messages.at(-1)!;
    expect(answer).toMatchObject({ role: 'assistant', status: 'complete' });
    expect(answer.usage).toEqual({ promptTokens: 412, completionTokens: 58, totalTokens: 470 });
    expect(answer.parts.map((p) => p.type)).toEqual(['text', 'tool_call', 'tool_call', 'text']);
    expect(answer.parts[0]).toEqual({ type: 'text', text: 'Let me check the weather in both cities.' });
    expect(answer.parts[3]).toEqual({
      type: 'text',
      text: 'Paris is 18 °C and cloudy; Tokyo is 24 °C and sunny.',
    });

    // Stored: a tab that comes back later gets it whole from the history.
    const later = await running.harness.connect();
    const ready = await later.hello(sessionId);
    const stored = ready.messages.at(-1)!;
    expect(toolCalls(stored.parts).map((c) => [c.name, c.status, c.arguments, c.result])).toEqual([
      [
        'get_weather',
        'done',
        '{"city": "Paris", "unit": "celsius"}',
        '{"city": "Paris", "temperature": 18, "conditions": "cloudy"}',
      ],
      [
        'get_weather',
        'done',
        '{"city": "Tokyo", "unit": "celsius"}',
        '{"city": "Tokyo", "temperature": 24, "conditions": "sunny"}',
      ],
    ]);

    // The next run: the same thread, a new run, the conversation with the calls and their results.
    await ask(client, 'And a refund?');
    const second = RunAgentInputSchema.parse((await running.upstream.request(1)).body);
    expect(second.threadId).toBe(sessionId);
    expect(second.runId).not.toBe(input.runId);
    expect(second.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect(second.messages[1]).toMatchObject({
      role: 'assistant',
      content: 'Let me check the weather in both cities.',
      toolCalls: [
        {
          id: 'call_Qm3xParis',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}' },
        },
        {
          id: 'call_Zk8Tokyo',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city": "Tokyo", "unit": "celsius"}' },
        },
      ],
    });
    expect(second.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'call_Qm3xParis' });
    expect(new Set(second.messages.map((m) => m.id)).size).toBe(second.messages.length);
  });

  test('the chunk shorthands (Mastra, Pydantic AI) and a reasoning message', async () => {
    running = await startAgentServer('ag-ui', [recorded('ag-ui', 'mastra-chunks')]);
    const client = await running.harness.connect();
    await client.hello();
    const frames = await ask(client, 'Can I get a refund?');
    expect(cardCounts(frames).get('toolu_01Search')).toEqual([0, 9, 26, 38]);
    const answer = client.view.messages.at(-1)!;
    expect(answer.status).toBe('complete');
    expect(answer.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool_call', 'text']);
    expect(answer.parts[0]).toEqual({
      type: 'reasoning',
      text: 'The visitor asks about refunds; search the policy first.',
    });
    expect(answer.parts[1]).toEqual({ type: 'text', text: 'Looking that up for you.' });
    expect(toolCalls(answer.parts)[0]).toMatchObject({
      name: 'search_docs',
      arguments: '{"query": "refund policy", "limit": 3}',
      status: 'done',
      result: 'Refunds are accepted within 30 days of purchase.',
    });
    expect(answer.parts[3]).toEqual({ type: 'text', text: 'You can get a refund within 30 days.' });
  });

  test('a tab that reloads mid-arguments gets the card back with its startedAt, and sees it finish', async () => {
    const feed = new Feed();
    running = await startAgentServer('ag-ui', [{ live: feed }]);
    const event = (e: object) => sse([e], { done: false });
    const stayer = await running.harness.connect();
    const { sessionId } = await stayer.hello();
    stayer.send({ type: 'send', text: 'Save my notes' });
    await running.upstream.request(0);
    feed.push(
      event({ type: 'RUN_STARTED', threadId: sessionId, runId: 'r1' }),
      event({ type: 'TOOL_CALL_START', toolCallId: 'call_w', toolCallName: 'write_file' }),
      event({ type: 'TOOL_CALL_ARGS', toolCallId: 'call_w', delta: '{"path": "notes.txt", ' }),
    );
    await stayer.next((f) => f.type === 'stream' && f.toolCallProgress?.charsAccumulated === 22);

    const resumeOf = async () => {
      const tab = await running!.harness.connect();
      await tab.hello(sessionId);
      return { tab, resume: await tab.next((f): f is StreamResumeFrame => f.type === 'stream_resume') };
    };
    const first = await resumeOf();
    const card = first.resume.toolCallsProgress[0]!;
    expect(card).toMatchObject({ index: 0, name: 'write_file', charsAccumulated: 22, callId: 'call_w' });
    expect(card).not.toHaveProperty('arguments');
    first.tab.socket.close();

    feed.push(event({ type: 'TOOL_CALL_ARGS', toolCallId: 'call_w', delta: '"text": "buy milk"}' }));
    await stayer.next((f) => f.type === 'stream' && f.toolCallProgress?.charsAccumulated === 41);
    const second = await resumeOf();
    expect(second.resume.toolCallsProgress[0]).toMatchObject({
      charsAccumulated: 41,
      startedAt: card.startedAt,
    });

    feed.push(
      event({ type: 'TOOL_CALL_END', toolCallId: 'call_w' }),
      event({ type: 'TOOL_CALL_RESULT', messageId: 'res', toolCallId: 'call_w', content: 'saved' }),
      event({ type: 'RUN_FINISHED', threadId: sessionId, runId: 'r1' }),
    );
    feed.end();
    await stayer.turnEnd();
    await second.tab.turnEnd();
    expect(second.tab.view.messages).toEqual(stayer.view.messages);
    expect(toolCalls(stayer.view.messages.at(-1)!.parts)[0]).toMatchObject({
      arguments: '{"path": "notes.txt", "text": "buy milk"}',
      status: 'done',
      result: 'saved',
    });
  });

  test('Stop closes the request to the agent within a second; the call it was running may have completed; the next turn works', async () => {
    const feed = new Feed();
    running = await startAgentServer('ag-ui', [{ live: feed }, recorded('ag-ui', 'mastra-chunks')]);
    const client = await running.harness.connect();
    const { sessionId } = await client.hello();
    client.send({ type: 'send', text: 'Run the report' });
    await running.upstream.request(0);
    feed.push(
      sse(
        [
          { type: 'RUN_STARTED', threadId: sessionId, runId: 'r1' },
          { type: 'TOOL_CALL_START', toolCallId: 'call_r', toolCallName: 'run_report' },
          { type: 'TOOL_CALL_ARGS', toolCallId: 'call_r', delta: '{}' },
          { type: 'TOOL_CALL_END', toolCallId: 'call_r' },
          { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
          { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'Running it now.' },
        ],
        { done: false },
      ),
    );
    await client.next((f) => f.type === 'tool_execute' && f.phase === 'start');
    await client.next((f) => f.type === 'stream' && f.contentDelta === 'Running it now.');
    const stoppedAt = performance.now();
    client.send({ type: 'abort' });
    await running.upstream.closedEarly;
    expect(performance.now() - stoppedAt).toBeLessThan(1_000);
    const end = await client.turnEnd();
    expect(end.message.status).toBe('aborted');
    expect(toolCalls(client.view.messages.at(-1)!.parts)[0]).toMatchObject({
      callId: 'call_r',
      status: 'unknown',
    });
    feed.end();

    const next = await ask(client, 'Can I get a refund?');
    expect(framesOf(next, 'message')[0]!.message.status).toBe('complete');
  });

  test('the visitor is told the agent is waited for when it is silent; a silence past the idle limit fails the turn', async () => {
    const quiet = new Feed();
    const silent = new Feed();
    running = await startAgentServer('ag-ui', [{ live: quiet }, { live: silent }], {
      waitingNoticeMs: 30,
      agent: { idleTimeoutMs: 300 },
    });
    const client = await running.harness.connect();
    const { sessionId } = await client.hello();
    client.send({ type: 'send', text: 'Think hard' });
    await running.upstream.request(0);
    quiet.push(sse([{ type: 'RUN_STARTED', threadId: sessionId, runId: 'r1' }], { done: false }));
    await client.next((f) => f.type === 'turn_status' && f.state === 'waiting');
    quiet.push(
      sse(
        [
          { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'Done thinking.' },
          { type: 'RUN_FINISHED', threadId: sessionId, runId: 'r1' },
        ],
        { done: false },
      ),
    );
    quiet.end();
    expect((await client.turnEnd()).message.status).toBe('complete');

    const from = client.frames.length;
    client.send({ type: 'send', text: 'Again' });
    const error = await client.next((f) => f.type === 'error', { from });
    expect(error).toMatchObject({
      code: 'upstream',
      message: 'the agent went silent and its answer was given up',
    });
    silent.end();
  });
});

describe('an AI SDK chat route', () => {
  test('streamText with a tool (toUIMessageStreamResponse): reasoning, a live card, its run and output, text, usage; sent back as UIMessages', async () => {
    running = await startAgentServer('ai-sdk', [
      recorded('ai-sdk', 'stream-text-tool'),
      recorded('ai-sdk', 'whole-input'),
    ]);
    const client = await running.harness.connect();
    const { sessionId } = await client.hello();
    const frames = await ask(client, 'Weather in San Francisco?');

    const first = await running.upstream.request(0);
    expect(first.body).toEqual({
      id: sessionId,
      trigger: 'submit-message',
      messages: [
        {
          id: expect.any(String),
          role: 'user',
          parts: [{ type: 'text', text: 'Weather in San Francisco?' }],
        },
      ],
    });
    expect(cardCounts(frames).get('call_fJdQDqnXeGxTmr4E3YPSR7Ar')).toEqual([0, 6, 13, 24]);
    const [start] = framesOf(frames, 'tool_execute').filter((f) => f.phase === 'start');
    // The input the SDK parsed is what the call ran with.
    expect(start).toMatchObject({ name: 'getWeather', arguments: '{"city":"San Francisco"}' });
    const answer = client.view.messages.at(-1)!;
    expect(answer).toMatchObject({
      status: 'complete',
      usage: { promptTokens: 310, completionTokens: 42, totalTokens: 352 },
    });
    expect(answer.parts.map((p) => p.type)).toEqual(['reasoning', 'tool_call', 'text']);
    expect(toolCalls(answer.parts)[0]).toMatchObject({
      status: 'done',
      result: { city: 'San Francisco', weather: 'sunny', temperature: 21 },
    });

    // A call given whole opens and ends at once; the answer goes back as steps with tool parts.
    const next = await ask(client, 'Where is my order?');
    expect(cardCounts(next).get('call_whole_1')).toEqual([0, 20]);
    expect(toolCalls(client.view.messages.at(-1)!.parts)[0]).toMatchObject({
      name: 'lookupOrder',
      arguments: '{"orderId":"A-1042"}',
      result: { status: 'shipped' },
    });
    const { messages } = (await running.upstream.request(1)).body as {
      messages: Array<{ role: string; parts: unknown[] }>;
    };
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.parts).toEqual([
      { type: 'step-start' },
      {
        type: 'tool-getWeather',
        toolCallId: 'call_fJdQDqnXeGxTmr4E3YPSR7Ar',
        state: 'output-available',
        input: { city: 'San Francisco' },
        output: { city: 'San Francisco', weather: 'sunny', temperature: 21 },
      },
      { type: 'step-start' },
      { type: 'text', text: 'It is sunny in San Francisco, 21 °C.', state: 'done' },
    ]);
  });
});

describe('parallel calls whose first result comes while the second is written', () => {
  test('the second card stays and keeps its clock; an AG-UI client sees no arguments after an end', async () => {
    // The recording is let through once the tab has joined: it sees every frame of the run.
    const feed = new Feed();
    const { body, ...reply } = recorded('ai-sdk', 'parallel-interleaved');
    running = await startAgentServer('ai-sdk', [{ ...reply, live: feed }]);
    const base = running.harness.url.replace(/^ws/, 'http').replace(/\/ws$/, '');
    const tab = await running.harness.connect();
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${base}/ag-ui`, threadId });
    agent.addMessage(userMessage('Weather in Paris and Tokyo?'));
    const { events, subscriber } = recorder();
    const ran = agent.runAgent({}, subscriber);
    await until(() => events.length > 0);
    await tab.hello(threadId);
    feed.push(String(body));
    feed.end();
    // The official client checks the order of every event: an ARGS after its END would reject here.
    await ran;
    const frames = tab.frames;
    await tab.turnEnd();
    // The round is over only once both calls are written: one `done`, then both run.
    const dones = framesOf(frames, 'stream').filter((f) => f.done);
    expect(dones).toHaveLength(2);
    const firstDone = frames.indexOf(dones[0]!);
    const lastFragment = frames.findLastIndex(
      (f) => f.type === 'stream' && f.toolCallProgress?.callId === 'call_B_tokyo',
    );
    expect(lastFragment).toBeGreaterThan(-1);
    expect(lastFragment).toBeLessThan(firstDone);
    const ends = framesOf(frames, 'tool_execute').filter((f) => f.phase === 'end');
    expect(ends.map((e) => e.callId)).toEqual(['call_A_paris', 'call_B_tokyo']);
    for (const callId of ['call_A_paris', 'call_B_tokyo']) {
      const end = events.findIndex(
        (e) => e.type === EventType.TOOL_CALL_END && (e as { toolCallId?: string }).toolCallId === callId,
      );
      const lastArgs = events.findLastIndex(
        (e) => e.type === EventType.TOOL_CALL_ARGS && (e as { toolCallId?: string }).toolCallId === callId,
      );
      expect(lastArgs).toBeLessThan(end);
    }
    expect(
      agent.messages.filter((m) => m.role === 'tool').map((m) => (m as { toolCallId: string }).toolCallId),
    ).toEqual(['call_A_paris', 'call_B_tokyo']);
  });
});

test('an agent that keeps its connection open after RUN_FINISHED does not hold the turn: it ends, and the request is closed', async () => {
  const feed = new Feed();
  running = await startAgentServer('ag-ui', [{ live: feed }]);
  const client = await running.harness.connect();
  const { sessionId } = await client.hello();
  const from = client.frames.length;
  client.send({ type: 'send', text: 'Hello' });
  await running.upstream.request(0);
  feed.push(
    sse(
      [
        { type: 'RUN_STARTED', threadId: sessionId, runId: 'r1' },
        { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hi there.' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
        { type: 'RUN_FINISHED', threadId: sessionId, runId: 'r1' },
      ],
      { done: false },
    ),
    // A proxy's keep-alive comment; the feed is never ended.
    ': ping\n\n',
  );
  const end = await client.turnEnd(from);
  expect(end.message).toMatchObject({ status: 'complete', parts: [{ type: 'text', text: 'Hi there.' }] });
  await running.upstream.closedEarly;
});
