/**
 * MCP servers wired into the chat services: their tools reach the model and run through
 * the agent, the server starts without waiting for them, and every way of serving (the
 * Fastify plugin, the plain ws adapter) stops their processes at shutdown.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ToolExecuteEvent } from '../src/agent/agent.js';
import { Workspace } from '../src/tools/workspace.js';
import { createChatServices } from '../src/compose/chat-services.js';
import { aalisChat } from '../src/adapters/fastify-plugin.js';
import { attachAalisChat } from '../src/adapters/use-ws.js';
import {
  completionChunk,
  sse,
  startFakeUpstream,
  textAnswer,
  usageChunk,
  type FakeUpstream,
} from './fake-upstream.js';
import { fixtureServer, isAlive, recordingLogger, waitFor } from './fixtures/mcp/harness.js';
import { openAIOn } from './provider-helpers.js';

let directory: string;
let upstream: FakeUpstream | undefined;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'aalis-mcp-wiring-'));
});
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const pidIn = (file: string) =>
  waitFor(() => {
    try {
      return Number(readFileSync(file, 'utf8')) || undefined;
    } catch {
      return undefined;
    }
  }, 'the server to start');

/** A model round that calls `name` with no arguments. */
const callRound = (name: string) =>
  sse([
    completionChunk({ role: 'assistant', content: null }),
    completionChunk({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: '{}' } }],
    }),
    completionChunk({}, 'tool_calls'),
    usageChunk(10, 5),
  ]);

describe('MCP servers in the chat services', () => {
  test('the model is offered the MCP tools beside the built-in ones, and the agent runs them', async () => {
    upstream = await startFakeUpstream([{ body: callRound('echo') }, { body: textAnswer('done', 20, 3) }]);
    const services = createChatServices(
      {
        provider: openAIOn(upstream.url),
        model: 'm',
        mcpServers: { local: fixtureServer('cancel-aware-server') },
      },
      recordingLogger(),
    );
    try {
      await services.mcp!.ready;
      expect(services.tools.names).toEqual(expect.arrayContaining(['calculator', 'echo', 'wait-for-cancel']));

      const events: ToolExecuteEvent[] = [];
      services.agent.on('tool:execute', (event) => events.push(event));
      const { message } = await services.agent.runTurn({
        sessionId: 's1',
        history: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'echo' }], createdAt: 1 }],
        signal: new AbortController().signal,
        workspace: new Workspace(),
      });
      expect(message.status).toBe('complete');
      expect(events.find((event) => event.phase === 'end')).toMatchObject({
        result: 'local echo',
        isError: false,
      });

      const offered = (upstream.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools;
      expect(offered.map((tool) => tool.function.name)).toEqual(
        expect.arrayContaining(['echo', 'calculator']),
      );
      const second = (upstream.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> })
        .messages;
      expect(second.at(-1)).toMatchObject({ role: 'tool', content: 'local echo' });
    } finally {
      await services.mcp!.close();
    }
  });

  test('without mcpServers there is no MCP source', () => {
    const services = createChatServices(
      { provider: openAIOn('http://127.0.0.1:9'), model: 'm' },
      recordingLogger(),
    );
    expect(services.mcp).toBeUndefined();
    expect(services.tools.names).toContain('calculator');
  });

  test('the Fastify plugin serves at once, and stops the MCP processes when the app closes', async () => {
    const pidFile = join(directory, 'plugin.pid');
    const app = Fastify({ logger: false });
    await app.register(aalisChat, {
      provider: openAIOn('http://127.0.0.1:9'),
      model: 'm',
      // Slow to answer: the app is ready long before it.
      mcpServers: {
        slow: fixtureServer('slow-start-server', { START_DELAY_MS: '1500' }),
        quick: fixtureServer('list-changed-server', { PID_FILE: pidFile }),
      },
    });
    const started = Date.now();
    await app.ready();
    expect(Date.now() - started).toBeLessThan(1_000);
    const pid = await pidIn(pidFile);
    await app.close();
    await waitFor(() => !isAlive(pid), 'the process to end');
  });

  test('attachAalisChat exposes the registry and the source, and close() stops the processes', async () => {
    const pidFile = join(directory, 'attach.pid');
    const http = createServer();
    const chat = attachAalisChat(http, {
      provider: openAIOn('http://127.0.0.1:9'),
      model: 'm',
      logger: recordingLogger(),
      mcpServers: { quick: fixtureServer('list-changed-server', { PID_FILE: pidFile }) },
    });
    await chat.mcp!.ready;
    expect(chat.tools.names).toContain('add-tool');
    const pid = await pidIn(pidFile);
    await chat.close();
    expect(chat.tools.names).not.toContain('add-tool');
    await waitFor(() => !isAlive(pid), 'the process to end');
  });
});
