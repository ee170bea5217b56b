/**
 * MCP Apps on real sockets and HTTP, against the ext-apps example server
 * (`@modelcontextprotocol/server-basic-vanillajs`, which this project did not write): its
 * `get-time` tool declares the app `ui://get-time/mcp-app.html`. The tool call carries
 * the app, the page is served with its policy, and the app's own calls reach only its own
 * server, under the site's approval rules.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ServerFrame } from '@aalis/protocol';
import { everythingOverStdio } from './fixtures/mcp/harness.js';
import { toolCallThen } from './scripted-replies.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

const APP_URI = 'ui://get-time/mcp-app.html';
const basicServer = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-basic-vanillajs')),

  'index.js',
);

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function withApps(approval?: Record<string, 'always' | 'session' | 'never'>) {
  server = await startServer({
    replies: toolCallThen('get-time', '{}', 'Here is the time.', 'call_time'),
    mcpServers: {
      apps: { command: process.execPath, args: [basicServer, '--stdio'] },
      everything: everythingOverStdio(),
    },
    allowedOrigins: ['https://shop.example'],
    ...(approval ? { approval } : {}),
  });
  await server.app.aalis.mcp!.ready;
  const client = await server.connect();
  await client.hello();
  return client;
}

const httpBase = () => server!.url.replace(/^ws/, 'http').replace(/\/ws$/, '');
const appCall = (client: TestClient, requestId: string, name: string, callId = 'call_time') => {
  client.send({ type: 'app_tool_call', requestId, callId, name, arguments: {} });
  return client.next(
    (f): f is Extract<ServerFrame, { type: 'app_tool_result' }> =>
      f.type === 'app_tool_result' && f.requestId === requestId,
  );
};

describe('a tool shown as an MCP App', () => {
  test('its call carries the app from the start, into the stored message', async () => {
    const client = await withApps();
    client.send({ type: 'send', text: 'What time is it?' });
    const start = await client.next((f) => f.type === 'tool_execute' && f.phase === 'start');
    expect(start).toMatchObject({ callId: 'call_time', app: { serverName: 'apps', resourceUri: APP_URI } });
    const end = await client.turnEnd();
    const part = end.message.parts.find((p) => p.type === 'tool_call');
    expect(part).toMatchObject({ app: { serverName: 'apps', resourceUri: APP_URI }, status: 'done' });
    expect(part).toMatchObject({ result: { structured: { time: expect.any(String) } } });
    // After a reload the history has it: the card shows the app again.
    const again = await server!.connect();
    const ready = await again.hello(end.sessionId);
    expect(ready.messages.at(-1)?.parts.find((p) => p.type === 'tool_call')).toMatchObject({
      app: { resourceUri: APP_URI },
    });
  });

  test('its page is served with a policy that sandboxes it and lets only the allowed sites frame it', async () => {
    await withApps();
    const response = await fetch(`${httpBase()}/mcp-apps?server=apps&uri=${encodeURIComponent(APP_URI)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain('sandbox allow-scripts');
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'none'");
    expect(policy).toContain("frame-ancestors 'self' https://shop.example");
    expect(policy).not.toContain('allow-same-origin');
    expect(await response.text()).toMatch(/<html/i);
  });

  test('no other resource, server or scheme is served through it', async () => {
    await withApps();
    const get = (query: string) => fetch(`${httpBase()}/mcp-apps?${query}`).then((r) => r.status);
    expect(await get(`server=apps&uri=${encodeURIComponent('ui://other/page.html')}`)).toBe(404);
    expect(await get(`server=everything&uri=${encodeURIComponent(APP_URI)}`)).toBe(404);
    expect(await get(`server=nope&uri=${encodeURIComponent(APP_URI)}`)).toBe(404);
    expect(
      await get(
        `server=everything&uri=${encodeURIComponent('demo://resource/static/document/architecture.md')}`,
      ),
    ).toBe(400);
    expect(await get('server=apps')).toBe(400);
  });

  test("the app's calls reach its own server's tools, and no other", async () => {
    const client = await withApps();
    client.send({ type: 'send', text: 'What time is it?' });
    await client.turnEnd();
    const own = await appCall(client, 'r1', 'get-time');
    expect(own.error).toBeUndefined();
    expect(own.result).toMatchObject({ structuredContent: { time: expect.any(String) } });
    // `echo` is a tool of another server of this site: not the app's to call.
    const other = await appCall(client, 'r2', 'echo');
    expect(other.result).toBeUndefined();
    expect(other.error).toMatch(/has no tool "echo"/);
    // A call the session does not show an app for.
    const stranger = await appCall(client, 'r3', 'get-time', 'call_unknown');
    expect(stranger.error).toMatch(/no app/);
  });

  test('a tool the site makes wait for approval is refused to the app', async () => {
    const client = await withApps({ 'get-time': 'session' });
    client.send({ type: 'send', text: 'What time is it?' });
    const asked = await client.next((f) => f.type === 'tool_approval_request');
    client.send({ type: 'tool_decision', callId: (asked as { callId: string }).callId, decision: 'approve' });
    await client.turnEnd();
    const refused = await appCall(client, 'r1', 'get-time');
    expect(refused.error).toMatch(/needs the visitor's approval/);
  });
});
