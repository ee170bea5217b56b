/**
 * The "done": `aalis-server --config examples/aalis.config.json`, the real command
 * with the example configuration, serves a chat whose tool comes from the reference MCP
 * server, asks for approval before it runs (policy `session`), and shows its progress.
 */
import { afterAll, expect, test } from 'vitest';
import type { ServerFrame } from '@aalis/protocol';
import { startCli, type RunningCli } from './cli-harness.js';
import { TestClient } from './ws-harness.js';

const exampleConfig = new URL('../../examples/aalis.config.json', import.meta.url).pathname;
let cli: RunningCli | undefined;
afterAll(() => cli?.child.kill('SIGTERM'));

test('the example configuration: an MCP tool, approved once, reports its progress', async () => {
  // At info, for the line that says when the MCP server's tools are in.
  cli = await startCli({ PORT: '0', AALIS_CONFIG: exampleConfig, LOG_LEVEL: 'info' });
  expect(cli.output()).toContain('examples/aalis.config.json');
  const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
  await client.hello();

  // The MCP server connects in the background: until it has, the model is offered no
  // MCP tool. Asked once its tools are listed.
  await cli.waitForOutput(/"mcpServer":"everything".*"msg":"MCP server connected"/, 30_000);
  client.send({ type: 'send', text: "Run the MCP server's long operation" });
  const request = await client.next(
    (f): f is Extract<ServerFrame, { type: 'tool_approval_request' }> =>
      f.type === 'tool_approval_request' || f.type === 'message',
    { timeoutMs: 20_000 },
  );
  expect(request).toMatchObject({ name: 'trigger-long-running-operation', policy: 'session' });
  const from = client.frames.indexOf(request!);
  client.send({ type: 'tool_decision', callId: request!.callId, decision: 'approve', remember: 'session' });
  const end = await client.turnEnd(from);

  const progress = client.frames
    .slice(from)
    .filter((f) => f.type === 'tool_execute' && f.phase === 'progress');
  expect(progress.length).toBeGreaterThanOrEqual(3);
  expect(progress.every((f) => f.type === 'tool_execute' && f.total === 6)).toBe(true);
  const call = end.message.parts.find((p) => p.type === 'tool_call')!;
  expect(call).toMatchObject({ status: 'done', name: 'trigger-long-running-operation' });
  expect(JSON.stringify(call.result)).toContain('Long running operation completed');
}, 60_000);
