/**
 * Approval before a risky tool runs, on real sockets: a fake upstream speaking the real
 * Chat Completions stream asks for two `get_weather` calls, the server's rules say that
 * tool needs approval, and tabs decide. The tool is a spy: a call that was declined must
 * never have run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerFrame } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import { defineTool } from '../src/tools/define-tool.js';
import { fixture } from './fake-upstream.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A get_weather that records every call it really runs. */
function spyWeather() {
  const ran: unknown[] = [];
  const tool = defineTool({
    name: 'get_weather',
    description: 'Weather (a spy)',
    parameters: { type: 'object' },
    execute: (args) => {
      ran.push(args);
      return { temperature: 21 };
    },
  });
  return { tool, ran };
}

/**
 * Two get_weather calls, Paris (index 0, call_Wq1Zr8) and Tokyo in Chinese (index 1, call_Hk3Lm2),
 * then a text answer, once per turn.
 */
const twoCallsThenText = (turns = 1) =>
  Array.from({ length: turns }, () => [
    { body: fixture('openai-parallel-tool-calls.sse') },
    { body: fixture('openai-text-answer.sse') },
  ]).flat();

type Request = Extract<ServerFrame, { type: 'tool_approval_request' }>;
const isRequest = (f: ServerFrame): f is Request => f.type === 'tool_approval_request';
const requests = (client: TestClient) => client.of('tool_approval_request');
const decide = (client: TestClient, callId: string, decision: 'approve' | 'deny', remember?: 'session') =>
  client.send({ type: 'tool_decision', callId, decision, ...(remember ? { remember } : {}) });
const toolFrames = (client: TestClient) => client.of('tool_execute').map((f) => `${f.phase}:${f.callId}`);

async function twoTabs(options: Parameters<typeof startServer>[0]) {
  server = await startServer(options);
  const a = await server.connect();
  const { sessionId } = await a.hello();
  const b = await server.connect();
  await b.hello(sessionId);
  return { a, b, sessionId };
}

describe('approval before a risky tool runs', () => {
  test('every tab is asked; the first decision wins, and every tab sees the same outcome', async () => {
    const weather = spyWeather();
    const { a, b } = await twoTabs({
      replies: twoCallsThenText(),
      tools: [weather.tool],
      approval: { get_weather: 'always' },
    });
    a.send({ type: 'send', text: 'Weather in Paris and Tokyo?' });
    await a.next((f) => requests(a).length === 2 && isRequest(f));
    await b.next((f) => requests(b).length === 2 && isRequest(f));
    const asked = requests(a);
    expect(asked.map((r) => [r.callId, r.index, r.name, r.policy])).toEqual([
      ['call_Wq1Zr8', 0, 'get_weather', 'always'],
      ['call_Hk3Lm2', 1, 'get_weather', 'always'],
    ]);
    // The arguments as the model wrote them (openai-parallel-tool-calls.sse), not parsed and rewritten.
    expect(asked[0]!.arguments).toBe('{"location":"Paris, France","unit":"celsius"}');
    expect(asked[0]!.expiresAt).toBeGreaterThan(Date.now() + 9 * 60_000);
    expect(requests(b)).toEqual(asked);
    expect(weather.ran).toEqual([]);

    // Two sockets keep no order between them: each late decision is sent once the outcome
    // of the first one arrived.
    const outcome = (tab: TestClient, callId: string) =>
      tab.next((f) => f.type === 'tool_execute' && f.callId === callId);
    decide(b, 'call_Hk3Lm2', 'approve');
    await outcome(a, 'call_Hk3Lm2');
    decide(a, 'call_Hk3Lm2', 'deny'); // Too late: b's decision won.
    decide(a, 'call_Wq1Zr8', 'deny');
    await outcome(b, 'call_Wq1Zr8');
    decide(b, 'call_Wq1Zr8', 'approve'); // Too late: a's won.
    const done = await a.turnEnd();
    await b.turnEnd();

    expect(weather.ran).toEqual([{ location: '东京, 日本', unit: 'celsius' }]);
    for (const tab of [a, b]) {
      const seen = toolFrames(tab);
      expect([...seen].sort()).toEqual(['end:call_Hk3Lm2', 'end:call_Wq1Zr8', 'start:call_Hk3Lm2']);
      expect(seen.indexOf('start:call_Hk3Lm2')).toBeLessThan(seen.indexOf('end:call_Hk3Lm2'));
      expect(tab.view.turn).toBeNull();
    }
    const declined = a.of('tool_execute').find((f) => f.callId === 'call_Wq1Zr8')!;
    expect(declined).toMatchObject({ phase: 'end', isError: true, declined: 'user' });
    expect(declined.arguments).toBe('{"location":"Paris, France","unit":"celsius"}');
    const parts = done.message.parts.filter((p) => p.type === 'tool_call');
    expect(parts.map((p) => [p.callId, p.status, p.declined]).sort()).toEqual([
      ['call_Hk3Lm2', 'done', undefined],
      ['call_Wq1Zr8', 'error', 'user'],
    ]);
    // What the model was told in the next round: the declined call's result says so.
    const secondRound = server!.upstream!.requests[1]!.body as {
      messages: Array<{ role: string; tool_call_id?: string; content?: string }>;
    };
    const toolResult = secondRound.messages.find((m) => m.tool_call_id === 'call_Wq1Zr8')!;
    expect(toolResult.content).toContain('declined');
  });

  test('no decision by expiresAt is a denial; the tool never runs', async () => {
    const weather = spyWeather();
    const { a } = await twoTabs({
      replies: twoCallsThenText(),
      tools: [weather.tool],
      approval: { 'get_*': 'always' },
      approvalTimeoutMs: 300,
    });
    a.send({ type: 'send', text: 'Weather?' });
    const done = await a.turnEnd();
    expect(weather.ran).toEqual([]);
    expect(a.of('tool_execute').map((f) => [f.phase, f.declined])).toEqual([
      ['end', 'expired'],
      ['end', 'expired'],
    ]);
    expect(done.message.status).toBe('complete');
  });

  test('a tab that joins while a call waits gets the request in stream_resume, and may answer it', async () => {
    const weather = spyWeather();
    const { a, sessionId } = await twoTabs({
      replies: twoCallsThenText(),
      tools: [weather.tool],
      approval: { get_weather: 'always' },
    });
    a.send({ type: 'send', text: 'Weather?' });
    await a.next((f) => requests(a).length === 2 && isRequest(f));
    decide(a, 'call_Hk3Lm2', 'deny');
    await a.next((f) => f.type === 'tool_execute' && f.callId === 'call_Hk3Lm2');

    const reloaded = await server!.connect();
    await reloaded.hello(sessionId);
    const resume = await reloaded.next((f) => f.type === 'stream_resume');
    expect(resume.type === 'stream_resume' && resume.approvals?.map((r) => r.callId)).toEqual([
      'call_Wq1Zr8',
    ]);
    expect([...reloaded.view.turn!.approvals.keys()]).toEqual(['call_Wq1Zr8']);
    decide(reloaded, 'call_Wq1Zr8', 'approve');
    await reloaded.turnEnd();
    expect(weather.ran).toEqual([{ location: 'Paris, France', unit: 'celsius' }]);
  });

  test('Stop ends the wait and the turn; nothing runs', async () => {
    const weather = spyWeather();
    const { a } = await twoTabs({
      replies: twoCallsThenText(),
      tools: [weather.tool],
      approval: { get_weather: 'always' },
    });
    a.send({ type: 'send', text: 'Weather?' });
    await a.next((f) => requests(a).length === 2 && isRequest(f));
    a.send({ type: 'abort' });
    const done = await a.turnEnd();
    expect(done.message.status).toBe('aborted');
    expect(weather.ran).toEqual([]);
    expect(a.of('tool_execute').every((f) => f.phase === 'end' && f.declined === undefined)).toBe(true);
  });

  test('"allow for this conversation" answers both calls, holds for the next turn, and survives a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-grants-'));
    try {
      const weather = spyWeather();
      const options = {
        tools: [weather.tool],
        approval: { get_weather: 'session' as const },
      };
      const store = new SqliteHistoryStore(dir);
      const { a, sessionId } = await twoTabs({ ...options, replies: twoCallsThenText(2), store });
      a.send({ type: 'send', text: 'Weather?' });
      await a.next((f) => requests(a).length === 2 && isRequest(f));
      expect(requests(a).map((r) => r.policy)).toEqual(['session', 'session']);
      decide(a, 'call_Hk3Lm2', 'approve', 'session');
      await a.turnEnd();
      expect(weather.ran).toHaveLength(2);

      const from = a.frames.length;
      a.send({ type: 'send', text: 'And again?' });
      await a.turnEnd(from);
      expect(weather.ran).toHaveLength(4);
      expect(requests(a)).toHaveLength(2); // None for the second turn.
      await server!.close();
      server = undefined;
      store.close();

      // A new server on the same data: the grant is the conversation's, kept by the server.
      const again = new SqliteHistoryStore(dir);
      server = await startServer({ ...options, replies: twoCallsThenText(), store: again });
      const tab = await server.connect();
      await tab.hello(sessionId);
      tab.send({ type: 'send', text: 'Once more?' });
      await tab.turnEnd();
      expect(requests(tab)).toEqual([]);
      expect(weather.ran).toHaveLength(6);
      await server.close();
      server = undefined;
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a grant is per conversation: another session is asked', async () => {
    const weather = spyWeather();
    const { a } = await twoTabs({
      replies: twoCallsThenText(2),
      tools: [weather.tool],
      approval: { get_weather: 'session' },
    });
    a.send({ type: 'send', text: 'Weather?' });
    await a.next((f) => requests(a).length === 2 && isRequest(f));
    decide(a, 'call_Hk3Lm2', 'approve', 'session');
    await a.turnEnd();

    const other = await server!.connect();
    await other.hello();
    other.send({ type: 'send', text: 'Weather?' });
    await other.next((f) => requests(other).length === 2 && isRequest(f));
    expect(weather.ran).toHaveLength(2);
  });
});
