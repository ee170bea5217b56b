/**
 * An upstream agent that fails, or breaks its protocol: each ends the turn with an `error`
 * frame a visitor can read (the agent's own words only in the log, by id), never a hang,
 * and the next turn works. A call whose arguments never ended is never shown as run.
 * And the agent's reported usage counts against the budgets.
 */
import { ErrorCode, type ServerFrame } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import type { Reply } from './fake-upstream.js';
import {
  ask,
  framesOf,
  recorded,
  startAgentServer,
  type AgentHarness,
  type Protocol,
} from './upstream-agent-helpers.js';

let running: AgentHarness | undefined;
afterEach(async () => {
  await running?.harness.close();
  await running?.upstream.close();
  running = undefined;
});

interface Failure {
  name: string;
  protocol: Protocol;
  reply: Reply;
  /** What the visitor reads. */
  told: string;
  /** What the log says under the error's id. */
  logged: RegExp;
}

const FAILURES: Failure[] = [
  {
    name: 'an HTTP 500',
    protocol: 'ag-ui',
    reply: { status: 500, body: '{"detail":"Internal Server Error"}' },
    told: 'the agent failed to answer',
    logged: /answered HTTP 500: \{"detail":"Internal Server Error"\}/,
  },
  {
    name: 'a RUN_ERROR',
    protocol: 'ag-ui',
    reply: recorded('ag-ui', 'run-error'),
    told: 'the agent reported an error and stopped',
    logged: /rate_limit_exceeded: Error code: 429/,
  },
  {
    name: 'an event that does not parse',
    protocol: 'ag-ui',
    reply: recorded('ag-ui', 'unparsable'),
    told: 'the agent sent an answer that could not be read',
    logged: /not an AG-UI event \(TEXT_MESSAGE_CONTENT; delta: /,
  },
  {
    name: 'an out-of-order event (TOOL_CALL_END twice)',
    protocol: 'ag-ui',
    reply: recorded('ag-ui', 'end-twice'),
    told: 'the agent sent an answer that could not be read',
    logged: /TOOL_CALL_END for tool call call_1, which had ended/,
  },
  {
    name: 'a stream cut without RUN_FINISHED',
    protocol: 'ag-ui',
    reply: recorded('ag-ui', 'cut-off'),
    told: "the agent's answer broke off before it finished",
    logged: /ended before its run finished/,
  },
  {
    name: 'an AI SDK error chunk',
    protocol: 'ai-sdk',
    reply: recorded('ai-sdk', 'error-chunk'),
    told: 'the agent reported an error and stopped',
    logged: /Overloaded \(anthropic 529\)/,
  },
  {
    name: 'an AI SDK stream without finish',
    protocol: 'ai-sdk',
    reply: { body: 'data: {"type":"start"}\n\ndata: {"type":"text-start","id":"0"}\n\n' },
    told: "the agent's answer broke off before it finished",
    logged: /ended before its run finished/,
  },
  {
    name: 'a response that is not an event stream',
    protocol: 'ai-sdk',
    reply: { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'It is sunny.' },
    told: 'the agent sent an answer that could not be read',
    logged: /answered with text\/plain; charset=utf-8, not an event stream/,
  },
];

const good: Record<Protocol, Reply> = {
  'ag-ui': recorded('ag-ui', 'mastra-chunks'),
  'ai-sdk': recorded('ai-sdk', 'whole-input'),
};

describe('a failing agent', () => {
  test.each(FAILURES)('$name: an error frame, then the next turn works', async (failure) => {
    const lines: string[] = [];
    running = await startAgentServer(failure.protocol, [failure.reply, good[failure.protocol]], {
      log: { write: (line: string) => lines.push(line) },
    });
    const client = await running.harness.connect();
    await client.hello();
    const frames = await ask(client, 'Hello?');
    const [error] = framesOf(frames, 'error');
    expect(error).toMatchObject({ code: ErrorCode.Upstream, message: failure.told });
    expect(error!.errorId).toMatch(/^[0-9a-f]{8}$/);
    const [end] = framesOf(frames, 'message');
    expect(end!.message).toMatchObject({ status: 'error', error: { code: ErrorCode.Upstream } });
    // The agent's words are in the log, under the id the visitor was given.
    const logged = lines.map((line) => JSON.parse(line) as { errorId?: string; err?: { message?: string } });
    expect(logged.find((entry) => entry.errorId === error!.errorId)?.err?.message).toMatch(failure.logged);

    const next = await ask(client, 'Again?');
    expect(framesOf(next, 'error')).toEqual([]);
    expect(framesOf(next, 'message')[0]!.message.status).toBe('complete');
  });

  test('a call whose arguments never ended is never shown as run, and the answer keeps what was shown', async () => {
    running = await startAgentServer('ag-ui', [recorded('ag-ui', 'cut-off')]);
    const client = await running.harness.connect();
    await client.hello();
    const frames = await ask(client, 'Write my notes');
    expect(framesOf(frames, 'stream').some((f) => f.toolCallProgress?.callId === 'call_w')).toBe(true);
    expect(framesOf(frames, 'tool_execute')).toEqual([]);
    const answer = client.view.messages.at(-1)!;
    expect(answer.parts).toEqual([{ type: 'text', text: 'Let me write that file.' }]);
    expect(client.view.turn).toBeNull();
  });

  test('a call the run ended without a result ends failed, never done', async () => {
    const body = [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TOOL_CALL_START', toolCallId: 'call_front', toolCallName: 'confirm_order' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_front', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call_front' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ]
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
    running = await startAgentServer('ag-ui', [{ body }]);
    const client = await running.harness.connect();
    await client.hello();
    const frames = await ask(client, 'Order it');
    const phases = framesOf(frames, 'tool_execute').map((f) => [f.phase, f.isError, f.result]);
    expect(phases).toEqual([
      ['start', undefined, undefined],
      ['end', true, 'The agent gave no result for this call.'],
    ]);
    expect(client.view.messages.at(-1)!.status).toBe('complete');
  });
});

describe("the agent's usage", () => {
  test('counts against the server tokens per day: reported on RUN_FINISHED, the next send is refused', async () => {
    running = await startAgentServer(
      'ag-ui',
      [recorded('ag-ui', 'langgraph-weather'), recorded('ag-ui', 'mastra-chunks')],
      { budgets: { serverTokensPerDay: 400 } },
    );
    const client = await running.harness.connect();
    await client.hello();
    const frames = await ask(client, 'Weather?');
    expect(framesOf(frames, 'message')[0]!.message.usage?.totalTokens).toBe(470);
    // The metrics name the back-end, and count the agent's tools by their own names.
    const metrics = (await running.harness.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('aalis_model_tokens_total{provider="ag-ui",model="(agent)",kind="prompt"} 412');
    expect(metrics).toMatch(/aalis_tool_calls_total\{tool="get_weather",outcome="ok"\} 2/);
    const from = client.frames.length;
    client.send({ type: 'send', text: 'More?', clientMessageId: 'c2' });
    const refused = await client.next(
      (f): f is Extract<ServerFrame, { type: 'error' }> => f.type === 'error',
      { from },
    );
    expect(refused).toMatchObject({
      code: ErrorCode.Overloaded,
      limit: 'server_tokens',
      clientMessageId: 'c2',
    });
  });

  test('a failed run still counts what it reported', async () => {
    running = await startAgentServer('ag-ui', [recorded('ag-ui', 'run-error')]);
    const client = await running.harness.connect();
    await client.hello();
    const frames = await ask(client, 'Hello?');
    expect(framesOf(frames, 'message')[0]!.message.usage).toEqual({
      promptTokens: 120,
      completionTokens: 3,
      totalTokens: 123,
    });
  });
});
