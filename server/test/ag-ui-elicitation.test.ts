/**
 * MCP elicitation seen from AG-UI: the official client (`HttpAgent`) runs a turn whose tool,
 * on a real MCP server (the reference `@modelcontextprotocol/server-everything`, or this
 * folder's `url-flow-server`), asks the visitor for input. AG-UI has no event for it: the
 * run carries it as `aalis.elicitation*` CUSTOM events with the fields of the WebSocket
 * frames, every one valid under @ag-ui/core's schemas. An AG-UI client cannot answer; a
 * WebSocket tab of the same thread can, else the request expires or a Stop cancels it.
 */
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { ServerFrame } from '@aalis/protocol';
import { afterEach, expect, test } from 'vitest';
import { RejoiningAgent, recorder, until, userMessage } from './ag-ui-client.js';
import { Feed } from './fake-upstream.js';
import { everythingOverStdio, fixtureServer } from './fixtures/mcp/harness.js';
import type { McpServersConfig } from '../src/tools/mcp/config.js';
import { toolCallThen } from './scripted-replies.js';
import { startServer, type Harness } from './ws-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const httpBase = (h: Harness) => h.url.replace(/^ws/, 'http').replace(/\/ws$/, '');

/** The values of the run's CUSTOM events named `name`, in order. */
const customs = (events: BaseEvent[], name: string): unknown[] =>
  events.flatMap((e) =>
    e.type === EventType.CUSTOM && (e as { name?: string }).name === name
      ? [(e as { value?: unknown }).value]
      : [],
  );

/** The index of the first event that `match`es. */
const indexOf = (events: BaseEvent[], match: (e: BaseEvent & Record<string, unknown>) => boolean): number =>
  events.findIndex((e) => match(e as BaseEvent & Record<string, unknown>));

/** A frame's fields as its CUSTOM event carries them: without `type` and `sessionId`. */
const fieldsOf = (frame: ServerFrame): Record<string, unknown> => {
  const { type: _type, sessionId: _session, ...fields } = frame as ServerFrame & { sessionId: string };
  return fields;
};

const resultOf = (events: BaseEvent[]) =>
  String(
    (events.find((e) => e.type === EventType.TOOL_CALL_RESULT) as { content?: string } | undefined)?.content,
  );

/**
 * An AG-UI run of a new thread whose model calls `tool` of `mcpServers` once, and a
 * WebSocket tab of the thread: the model's call is held until the tab has joined, so that
 * the tab gets every frame of the question live.
 */
async function runWithTab(tool: string, mcpServers: McpServersConfig) {
  const feed = new Feed();
  const [call, answer] = toolCallThen(tool, '{}', 'Done.', 'call_elicit');
  harness = await startServer({ replies: [{ live: feed }, answer!], mcpServers });
  await harness.app.aalis.mcp!.ready;
  const threadId = `thread-${randomUUID()}`;
  const agent = new HttpAgent({ url: `${httpBase(harness)}/ag-ui`, threadId });
  agent.addMessage(userMessage('Ask me things'));
  const { events, subscriber } = recorder();
  const ran = agent.runAgent({}, subscriber);
  // The thread does not exist until the run makes it: the tab joins once it does.
  await until(() => events.some((e) => e.type === EventType.RUN_STARTED));
  const tab = await harness.connect();
  await tab.hello(threadId);
  feed.push(String(call!.body));
  feed.end();
  return { events, ran, tab };
}

test('a form an MCP server asks for reaches the AG-UI run as CUSTOM events with the frames’ fields; a tab of the thread answers it', async () => {
  const { events, ran, tab } = await runWithTab('trigger-elicitation-request', {
    everything: everythingOverStdio(),
  });
  const asked = await tab.next((f) => f.type === 'elicitation');
  await until(() => customs(events, 'aalis.elicitation').length > 0);
  expect(customs(events, 'aalis.elicitation')).toEqual([fieldsOf(asked)]);
  expect(customs(events, 'aalis.elicitation')[0]).toMatchObject({
    callId: 'call_elicit',
    serverName: 'everything',
    mode: 'form',
    requestedSchema: { type: 'object', required: ['name'] },
  });

  tab.send({
    type: 'elicitation_answer',
    elicitationId: (asked as { elicitationId: string }).elicitationId,
    action: 'accept',
    content: { name: 'Ada' },
  });
  await ran;
  const settled = await tab.next((f) => f.type === 'elicitation_settled');
  expect(customs(events, 'aalis.elicitation_settled')).toEqual([fieldsOf(settled)]);
  expect(fieldsOf(settled)).toEqual({ elicitationId: fieldsOf(asked).elicitationId, action: 'accept' });
  // In the order things happened: asked, settled, then the call's result, then the run's end.
  const at = (name: string) => indexOf(events, (e) => e.name === name);
  expect(at('aalis.elicitation')).toBeLessThan(at('aalis.elicitation_settled'));
  expect(at('aalis.elicitation_settled')).toBeLessThan(
    indexOf(events, (e) => e.type === EventType.TOOL_CALL_RESULT),
  );
  expect(resultOf(events)).toContain('Name: Ada');
  expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
});

test('a page to visit: opened in a tab, then its flow finished, the AG-UI run hears both', async () => {
  const { events, ran, tab } = await runWithTab('connect-account', {
    accounts: fixtureServer('url-flow-server'),
  });
  const asked = await tab.next((f) => f.type === 'elicitation');
  expect(fieldsOf(asked)).toMatchObject({ mode: 'url', url: 'https://accounts.example.com/connect' });
  const { elicitationId } = fieldsOf(asked);
  tab.send({ type: 'elicitation_answer', elicitationId, action: 'accept' });
  await ran;
  const complete = await tab.next((f) => f.type === 'elicitation_complete');
  expect(customs(events, 'aalis.elicitation')).toEqual([fieldsOf(asked)]);
  expect(customs(events, 'aalis.elicitation_settled')).toEqual([{ elicitationId, action: 'accept' }]);
  expect(customs(events, 'aalis.elicitation_complete')).toEqual([fieldsOf(complete)]);
  expect(fieldsOf(complete)).toEqual({ elicitationId });
  expect(resultOf(events)).toContain('connected');
});

test('with no tab to answer, the AG-UI client is told the request expired, and the tool that it was cancelled', async () => {
  harness = await startServer({
    replies: toolCallThen('trigger-elicitation-request', '{}', 'Done.', 'call_elicit'),
    mcpServers: { everything: everythingOverStdio() },
    sessions: { elicitationTimeoutMs: 300 },
  });
  await harness.app.aalis.mcp!.ready;
  const agent = new HttpAgent({ url: `${httpBase(harness)}/ag-ui`, threadId: `thread-${randomUUID()}` });
  agent.addMessage(userMessage('Ask me things'));
  const { events, subscriber } = recorder();
  await agent.runAgent({}, subscriber);
  const [asked] = customs(events, 'aalis.elicitation') as Array<{ elicitationId: string }>;
  expect(customs(events, 'aalis.elicitation_settled')).toEqual([
    { elicitationId: asked!.elicitationId, action: 'cancel', reason: 'expired' },
  ]);
  expect(resultOf(events)).toContain('User cancelled');
  expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
});

test('a rejoin while it is open gets it after the snapshot; a Stop cancels it, and both streams hear so', async () => {
  harness = await startServer({
    replies: toolCallThen('trigger-elicitation-request', '{}', 'Done.', 'call_elicit'),
    mcpServers: { everything: everythingOverStdio() },
  });
  await harness.app.aalis.mcp!.ready;
  const base = httpBase(harness);
  const threadId = `thread-${randomUUID()}`;
  const first = new HttpAgent({ url: `${base}/ag-ui`, threadId });
  first.addMessage(userMessage('Ask me things'));
  const firstRun = recorder();
  const running = first.runAgent({}, firstRun.subscriber);
  await until(() => customs(firstRun.events, 'aalis.elicitation').length > 0);

  // The page reloads: a new client, same thread.
  const again = new RejoiningAgent({ url: `${base}/ag-ui`, threadId }, base);
  const rejoin = recorder();
  const rejoined = again.connectAgent({}, rejoin.subscriber);
  await until(() => customs(rejoin.events, 'aalis.elicitation').length > 0);
  expect(customs(rejoin.events, 'aalis.elicitation')).toEqual(customs(firstRun.events, 'aalis.elicitation'));
  expect(indexOf(rejoin.events, (e) => e.type === EventType.MESSAGES_SNAPSHOT)).toBeLessThan(
    indexOf(rejoin.events, (e) => e.name === 'aalis.elicitation'),
  );

  const stopped = await fetch(`${base}/ag-ui/threads/${threadId}/stop`, { method: 'POST' });
  expect(stopped.status).toBe(204);
  await Promise.all([rejoined, running]);
  const [asked] = customs(firstRun.events, 'aalis.elicitation') as Array<{ elicitationId: string }>;
  for (const { events } of [firstRun, rejoin]) {
    expect(customs(events, 'aalis.elicitation_settled')).toEqual([
      { elicitationId: asked!.elicitationId, action: 'cancel', reason: 'stopped' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'cancelled' } });
  }
});
