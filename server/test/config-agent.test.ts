/**
 * An upstream agent configured: `AALIS_AGENT_PROTOCOL` and `AALIS_AGENT_URL`, or the file's
 * `agent` block (headers with `${VAR}`), the environment winning; each mistake one line;
 * `--check` showing it with its secrets masked; and `aalis-server` started with one,
 * chatting through /ws with a fake agent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkConfiguration } from '../src/config/check.js';
import { ConfigError, loadServerConfig } from '../src/config/server-config.js';
import { startCli } from './cli-harness.js';
import { startFakeUpstream } from './fake-upstream.js';
import { recorded } from './upstream-agent-helpers.js';
import { TestClient } from './ws-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'aalis-agent-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
function configFile(content: unknown): string {
  const path = join(dir, `config-${++count}.json`);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

type Env = Record<string, string>;
const load = (env: Env, content?: unknown) =>
  loadServerConfig({ ...(content === undefined ? {} : { configPath: configFile(content) }), env });

/** Every line the configuration is refused with. */
function problems(env: Env, content?: unknown): string[] {
  try {
    load(env, content);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.split('\n');
  }
  throw new Error('no mistake found');
}

const AGENT = { AALIS_AGENT_PROTOCOL: 'ag-ui', AALIS_AGENT_URL: 'http://127.0.0.1:9/agent' };

describe('an agent from the environment or the file', () => {
  test('the environment alone: no provider is needed, none of its keys read, no built-in tools', () => {
    const { config } = load({ ...AGENT, OPENAI_API_KEY: 'sk-unused', AALIS_MODEL: 'ignored' });
    expect(config.agent).toEqual({ protocol: 'ag-ui', url: 'http://127.0.0.1:9/agent', headers: {} });
    expect(config.builtinTools).toEqual([]);
  });

  test("the file's block, its headers reading the environment; a variable wins over the file", () => {
    const file = {
      agent: {
        protocol: 'ai-sdk',
        url: 'https://agent.example.com/api/chat',
        headers: { Authorization: 'Bearer ${AGENT_TOKEN}', 'X-Site': 'shop' },
      },
    };
    const { config } = load({ AGENT_TOKEN: 'tok-123' }, file);
    expect(config.agent).toEqual({
      protocol: 'ai-sdk',
      url: 'https://agent.example.com/api/chat',
      headers: { Authorization: 'Bearer tok-123', 'X-Site': 'shop' },
    });
    const over = load({ AGENT_TOKEN: 'tok-123', AALIS_AGENT_URL: 'http://127.0.0.1:3000/api/chat' }, file);
    expect(over.config.agent).toMatchObject({ protocol: 'ai-sdk', url: 'http://127.0.0.1:3000/api/chat' });
    expect(over.overridden).toContain('AALIS_AGENT_URL');
  });

  test.each<[string, Env, unknown, string]>([
    [
      'an unknown protocol',
      { ...AGENT, AALIS_AGENT_PROTOCOL: 'langgraph' },
      undefined,
      'AALIS_AGENT_PROTOCOL must be one of ag-ui, ai-sdk; it is "langgraph"',
    ],
    [
      'an unknown protocol in the file',
      {},
      { agent: { protocol: 'crewai', url: 'https://a.example' } },
      'agent.protocol: must be one of ag-ui, ai-sdk',
    ],
    [
      'no URL',
      { AALIS_AGENT_PROTOCOL: 'ag-ui' },
      undefined,
      "AALIS_AGENT_PROTOCOL=ag-ui needs AALIS_AGENT_URL, the agent's endpoint",
    ],
    [
      'no protocol',
      { AALIS_AGENT_URL: 'http://127.0.0.1:9/agent' },
      undefined,
      'AALIS_AGENT_URL needs AALIS_AGENT_PROTOCOL (ag-ui or ai-sdk)',
    ],
    [
      'a URL that is not http',
      { ...AGENT, AALIS_AGENT_URL: 'ftp://agent.example' },
      undefined,
      'AALIS_AGENT_URL must be an http:// or https:// URL; it is "ftp://agent.example"',
    ],
    [
      'headers without an agent',
      {},
      { agent: { headers: { Authorization: 'Bearer x' } } },
      'agent.headers needs AALIS_AGENT_PROTOCOL and AALIS_AGENT_URL',
    ],
    [
      'a provider named as well',
      { ...AGENT, AALIS_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x' },
      undefined,
      'AALIS_PROVIDER and an agent (AALIS_AGENT_PROTOCOL) both answer turns: keep one of them',
    ],
    [
      "tools only a model's turns use",
      AGENT,
      { mcpServers: { web: { url: 'https://mcp.example' } } },
      'mcpServers: the agent runs its own tools and prompt, so this is not used: remove it, or the agent',
    ],
  ])('%s: one line', (_name, env, content, line) => {
    const lines = problems(env, content);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
  });

  test('--check shows the agent, its header secrets and URL password masked', async () => {
    const loaded = load(
      { AGENT_TOKEN: 'tok-very-secret-4711' },
      {
        agent: {
          protocol: 'ag-ui',
          url: 'https://user:pa55word@agent.example.com/run',
          headers: { Authorization: 'Bearer ${AGENT_TOKEN}', 'X-Site': 'shop' },
        },
      },
    );
    const out: string[] = [];
    const code = await checkConfiguration(loaded, { out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).not.toContain('tok-very-secret-4711');
    expect(text).not.toContain('pa55word');
    const resolved = JSON.parse(text.slice(text.indexOf('{'), text.indexOf('\n}') + 2));
    expect(resolved.agent).toEqual({
      protocol: 'ag-ui',
      url: 'https://user:***@agent.example.com/run',
      headers: { Authorization: '***', 'X-Site': 'shop' },
    });
    expect(resolved.provider.name).toBeUndefined();
  });
});

describe('aalis-server with an agent', () => {
  test('says so at start, and chats through /ws with it', async () => {
    const upstream = await startFakeUpstream([recorded('ai-sdk', 'stream-text-tool')]);
    const cli = await startCli({
      PORT: '0',
      AALIS_DATA_DIR: ':memory:',
      AALIS_AGENT_PROTOCOL: 'ai-sdk',
      AALIS_AGENT_URL: `${upstream.url}/api/chat`,
    });
    try {
      expect(cli.output()).toContain(`(agent ai-sdk at ${upstream.url}/api/chat, history in memory`);
      const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
      await client.hello();
      client.send({ type: 'send', text: 'Weather in San Francisco?' });
      const end = await client.turnEnd();
      expect(end.message.status).toBe('complete');
      expect(client.view.messages.at(-1)!.parts.map((p) => p.type)).toEqual([
        'reasoning',
        'tool_call',
        'text',
      ]);
      client.socket.close();
    } finally {
      cli.child.kill('SIGTERM');
      await new Promise((resolve) => cli.child.once('close', resolve));
      await upstream.close();
    }
  });
});
