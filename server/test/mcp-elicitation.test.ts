/**
 * MCP elicitation on real sockets, against the reference server
 * (`@modelcontextprotocol/server-everything`, which this project did not write): its
 * `trigger-elicitation-request` tool asks for a form mid-call and reports what it got,
 * its `trigger-url-elicitation` asks the visitor to visit a page. A fake upstream speaking
 * the real Chat Completions stream makes the model call them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ServerFrame } from '@aalis/protocol';
import { createAalisServer } from '../src/app.js';
import { loadServerConfig } from '../src/config/server-config.js';
import { startFakeUpstream } from './fake-upstream.js';
import { everythingOverStdio } from './fixtures/mcp/harness.js';
import { toolCallThen } from './scripted-replies.js';
import { TestClient, startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Asked = Extract<ServerFrame, { type: 'elicitation' }>;
const isAsked = (f: ServerFrame): f is Asked => f.type === 'elicitation';
const settled = (client: TestClient) => client.of('elicitation_settled');

/** A server whose model calls `tool` once per turn; two tabs on one session. */
async function twoTabs(tool: string, args = '{}', turns = 1) {
  server = await startServer({
    replies: Array.from({ length: turns }, () => toolCallThen(tool, args, 'Done.', 'call_elicit')).flat(),
    mcpServers: { everything: everythingOverStdio() },
  });
  return tabsOf(server);
}

/** Two tabs on one session, once the MCP server's tools are in. */
async function tabsOf(running: Harness) {
  await running.app.aalis.mcp!.ready;
  const a = await running.connect();
  const { sessionId } = await a.hello();
  const b = await running.connect();
  await b.hello(sessionId);
  return { a, b, sessionId };
}

const FORM_ANSWER = {
  name: 'Ada Lovelace',
  check: true,
  email: 'ada@example.org',
  integer: 7,
  untitledMultipleSelectEnum: ['Piano', 'Violin'],
  titledSingleSelectEnum: 'hero-3',
};

/** The text of the tool's result in its `end` frame. */
const resultOf = async (client: TestClient) => {
  const end = await client.next((f) => f.type === 'tool_execute' && f.phase === 'end');
  return JSON.stringify((end as Extract<ServerFrame, { type: 'tool_execute' }>).result);
};

describe('a form an MCP server asks the visitor to fill', () => {
  test('every tab is asked in the call’s card; an answer that does not fit is refused; the first that fits wins', async () => {
    const { a, b } = await twoTabs('trigger-elicitation-request');
    a.send({ type: 'send', text: 'Ask me things' });
    const asked = await a.next(isAsked);
    await b.next(isAsked);
    expect(asked).toMatchObject({
      callId: 'call_elicit',
      serverName: 'everything',
      mode: 'form',
      message: 'Please provide inputs for the following fields:',
      requestedSchema: { type: 'object', required: ['name'] },
    });
    expect(Object.keys(asked.requestedSchema!.properties)).toContain('untitledMultipleSelectEnum');
    expect(a.view.turn?.elicitations.get(asked.elicitationId)).toBeDefined();

    // No name (required), then a number where an email goes: refused to that tab alone, still open.
    b.send({ type: 'elicitation_answer', elicitationId: asked.elicitationId, action: 'accept', content: {} });
    const missing = await b.next((f) => f.type === 'error');
    expect(missing).toMatchObject({ code: 'invalid_answer', elicitationId: asked.elicitationId });
    expect((missing as { message: string }).message).toMatch(/name/);
    b.send({
      type: 'elicitation_answer',
      elicitationId: asked.elicitationId,
      action: 'accept',
      content: { name: 'x', email: 12 },
    });
    const wrongType = await b.next((f) => f.type === 'error', { from: b.frames.indexOf(missing) + 1 });
    expect(wrongType).toMatchObject({ code: 'invalid_answer', elicitationId: asked.elicitationId });
    expect((wrongType as { message: string }).message).toMatch(/email/);

    a.send({
      type: 'elicitation_answer',
      elicitationId: asked.elicitationId,
      action: 'accept',
      content: FORM_ANSWER,
    });
    for (const tab of [a, b]) {
      const done = await tab.next((f) => f.type === 'elicitation_settled');
      expect(done).toMatchObject({ elicitationId: asked.elicitationId, action: 'accept' });
    }
    // A second answer, from the other tab, comes too late: nothing is open any more.
    b.send({ type: 'elicitation_answer', elicitationId: asked.elicitationId, action: 'decline' });
    const result = await resultOf(a);
    expect(result).toContain('User provided the requested information');
    expect(result).toContain('Name: Ada Lovelace');
    expect(result).toContain('Email: ada@example.org');
    await a.turnEnd();
    expect(await b.next((f) => f.type === 'error' && f.code === 'not_pending')).toMatchObject({
      elicitationId: asked.elicitationId,
    });
    // The refused answers changed nothing: one settling, the accept, in each tab.
    expect(settled(a)).toHaveLength(1);
    expect(settled(b)).toHaveLength(1);
    expect(a.view.turn).toBeNull();
  });

  test('decline reaches the MCP server as decline', async () => {
    const { a } = await twoTabs('trigger-elicitation-request');
    a.send({ type: 'send', text: 'Ask me things' });
    const asked = await a.next(isAsked);
    a.send({ type: 'elicitation_answer', elicitationId: asked.elicitationId, action: 'decline' });
    expect(await resultOf(a)).toContain('User declined');
  });

  test('a tab that joins while it is open gets it in stream_resume, and can answer it', async () => {
    const { a, sessionId } = await twoTabs('trigger-elicitation-request');
    a.send({ type: 'send', text: 'Ask me things' });
    const asked = await a.next(isAsked);
    const late = await server!.connect();
    await late.hello(sessionId);
    const resume = await late.next((f) => f.type === 'stream_resume');
    expect(resume).toMatchObject({
      elicitations: [expect.objectContaining({ elicitationId: asked.elicitationId })],
    });
    late.send({
      type: 'elicitation_answer',
      elicitationId: asked.elicitationId,
      action: 'accept',
      content: { name: 'Late' },
    });
    expect(await resultOf(a)).toContain('Name: Late');
  });

  test('Stop cancels it: every tab hears so, and the turn ends aborted', async () => {
    const { a, b } = await twoTabs('trigger-elicitation-request');
    a.send({ type: 'send', text: 'Ask me things' });
    await a.next(isAsked);
    b.send({ type: 'abort' });
    const done = await a.next((f) => f.type === 'elicitation_settled');
    expect(done).toMatchObject({ action: 'cancel', reason: 'stopped' });
    const end = await a.turnEnd();
    expect(end.message.status).toBe('aborted');
  });

  test('no answer within the configured elicitationTimeoutMs is a cancel, told to the visitor and to the MCP server', async () => {
    server = await configuredServer({ elicitationTimeoutMs: 300 }, 'trigger-elicitation-request');
    const { a } = await tabsOf(server);
    const sent = Date.now();
    a.send({ type: 'send', text: 'Ask me things' });
    const asked = await a.next(isAsked);
    // Asked after the send, expiring 300 ms after it was asked (the server's clock is this one).
    expect(asked.expiresAt).toBeGreaterThanOrEqual(sent + 300);
    expect(asked.expiresAt).toBeLessThanOrEqual(Date.now() + 300);
    const done = await a.next((f) => f.type === 'elicitation_settled');
    expect(done).toMatchObject({ elicitationId: asked.elicitationId, action: 'cancel', reason: 'expired' });
    expect(await resultOf(a)).toContain('User cancelled');
  });
});

describe('a page an MCP server asks the visitor to visit', () => {
  test('the URL is shown, opening it is an accept, and no content passes', async () => {
    const url = 'https://accounts.example.com/connect?state=abc';
    const { a } = await twoTabs(
      'trigger-url-elicitation',
      JSON.stringify({ url, message: 'Connect your account' }),
    );
    a.send({ type: 'send', text: 'Connect me' });
    const asked = await a.next(isAsked);
    expect(asked).toMatchObject({
      mode: 'url',
      url,
      message: 'Connect your account',
      serverName: 'everything',
    });
    expect(asked).not.toHaveProperty('requestedSchema');
    a.send({
      type: 'elicitation_answer',
      elicitationId: asked.elicitationId,
      action: 'accept',
      content: { x: 'y' },
    });
    expect(await a.next((f) => f.type === 'error')).toMatchObject({ code: 'invalid_answer' });
    a.send({ type: 'elicitation_answer', elicitationId: asked.elicitationId, action: 'accept' });
    await a.next((f) => f.type === 'elicitation_settled');
    // Opened, the page stays on the card until the call ends.
    expect(a.view.turn?.elicitations.get(asked.elicitationId)).toMatchObject({ opened: true });
    expect(await resultOf(a)).toContain('User completed the URL elicitation flow');
  });

  test('a page that is not http(s) is declined and never shown', async () => {
    const { a } = await twoTabs('trigger-url-elicitation', JSON.stringify({ url: 'javascript:alert(1)' }));
    a.send({ type: 'send', text: 'Connect me' });
    const result = await resultOf(a);
    // The reference server takes any URL (its check lets javascript: through): the decline is ours.
    expect(result).toContain('User declined to open the URL');
    expect(a.of('elicitation')).toEqual([]);
  });
});

/**
 * The whole server as `aalis-server --config` makes it: a configuration file (`settings`
 * over a provider whose model, a fake upstream, calls `tool` once, and the reference MCP
 * server) read by the loader, then `createAalisServer`, listening on a free port.
 */
async function configuredServer(settings: Record<string, unknown>, tool: string): Promise<Harness> {
  const upstream = await startFakeUpstream(toolCallThen(tool, '{}', 'Done.', 'call_elicit'));
  const dir = mkdtempSync(join(tmpdir(), 'aalis-elicitation-'));
  const configPath = join(dir, 'aalis.config.json');
  const { command, args } = everythingOverStdio();
  const file = {
    provider: { name: 'openai', model: 'test-model', apiKey: 'test-key', baseUrl: `${upstream.url}/v1` },
    dataDir: ':memory:',
    logLevel: 'silent',
    mcpServers: { everything: { command, args } },
    ...settings,
  };
  writeFileSync(configPath, JSON.stringify(file));
  const { config, env } = loadServerConfig({ configPath, env: {} });
  const whole = await createAalisServer(config, env);
  await whole.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = whole.app.server.address() as { port: number };
  const url = `ws://127.0.0.1:${port}/ws`;
  const clients: TestClient[] = [];
  return {
    app: whole.app,
    url,
    upstream,
    connect: async () => {
      const client = await TestClient.open(url);
      clients.push(client);
      return client;
    },
    close: async () => {
      for (const client of clients) client.socket.terminate();
      await whole.close();
      await upstream.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
