/**
 * The configuration file through the real `aalis-server` (built), with real files in a
 * tmp directory: a mistake is one line and exit 2, `--check` masks every secret and
 * reports each MCP server, and a file's settings reach the model (with the environment
 * winning over them).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { builtinTools } from '../src/tools/builtin/index.js';
import { AALIS_SERVER_BIN, startCli } from './cli-harness.js';
import { fixture, startFakeUpstream, textAnswer } from './fake-upstream.js';
import { TestClient } from './ws-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'aalis-config-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let count = 0;
function configFile(content: unknown, name = `config-${++count}.json`): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [AALIS_SERVER_BIN, ...args], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? dir, ...env },
      cwd: dir,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** A loopback port nothing listens on: a provider there is never reached (no network). */
async function closedPort(): Promise<number> {
  const server: Server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Each test starts the real command, more than once: slow on a busy machine.
const slow = { timeout: 30_000 };

describe('a mistake is one line and exit 2', slow, () => {
  test.concurrent.each([
    [{ sytemPrompt: 'Be brief.' }, 'unknown key "sytemPrompt" (did you mean "systemPrompt"?)'],
    [
      { mcpServers: { files: { args: ['--root', '.'] } } },
      'mcpServers.files.command: required: the program to run (npx, node, uvx, a path)',
    ],
    [{ approval: { delete_file: 'ask' } }, 'approval.delete_file: must be one of always, session, never'],
    [{ port: 65_536 }, 'port: must be a whole number from 0 to 65535'],
    [
      { token: '${AALIS_TEST_UNSET}' },
      'token: the environment variable AALIS_TEST_UNSET is not set (set it, or write ${AALIS_TEST_UNSET:-default})',
    ],
    [
      { systemPrompt: { file: 'absent.md' } },
      'systemPrompt.file: absent.md cannot be read (ENOENT: no such file or directory)',
    ],
    [
      '{\n  "port": 8787\n  "host": "0.0.0.0"\n}',
      "not valid JSON: Expected ',' or '}' after property value at line 3, column 3",
    ],
  ])('%j', async (content, line) => {
    const path = configFile(content);
    for (const args of [
      ['--config', path],
      ['--config', path, '--check'],
    ]) {
      const { code, out, err } = await run(args);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toBe(`aalis-server: ${path}: ${line}\n`);
    }
  });

  test.concurrent('AALIS_CONFIG names the file too; a file that is not there', async () => {
    const { code, err } = await run([], { AALIS_CONFIG: 'absent.json' });
    expect(code).toBe(2);
    expect(err).toBe('aalis-server: absent.json: cannot be read (ENOENT: no such file or directory)\n');
  });

  test.concurrent('command-line mistakes', async () => {
    expect(await run(['--config'])).toMatchObject({
      code: 2,
      err: 'aalis-server: --config needs the path of a configuration file: --config aalis.config.json\n',
    });
    expect(await run(['--confg', 'x.json'])).toMatchObject({
      code: 2,
      err: 'aalis-server: unknown argument "--confg" (aalis-server --help lists them)\n',
    });
  });

  test.concurrent(
    'Redis or PostgreSQL that cannot be reached at start: one line without the password',
    async () => {
      const port = await closedPort();
      const redis = await run([], {
        AALIS_REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`,
        AALIS_AUTH_SECRET: 'a-cluster-secret-of-at-least-32-bytes!!',
        AALIS_DATA_DIR: ':memory:',
      });
      expect(redis.code).toBe(2);
      expect(redis.out).toBe('');
      expect(redis.err).toMatch(
        new RegExp(
          `^aalis-server: Redis at redis://(:?\\*\\*\\*@)?127\\.0\\.0\\.1:${port} cannot be reached: ECONNREFUSED\\n$`,
        ),
      );
      expect(redis.err).not.toContain('hunter2');
      const postgres = await run([], {
        AALIS_DATABASE_URL: `postgres://aalis:hunter2@127.0.0.1:${port}/chat`,
      });
      expect(postgres.code).toBe(2);
      expect(postgres.out).toBe('');
      expect(postgres.err).toMatch(
        /^aalis-server: PostgreSQL at postgres:\/\/aalis@127\.0\.0\.1:\d+\/chat cannot be reached: ECONNREFUSED\n$/,
      );
      expect(postgres.err).not.toContain('hunter2');
    },
  );

  test.concurrent('--help documents --config and --check, and points to the schema', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('--config FILE');
    expect(out).toContain('--check');
    expect(out).toContain('AALIS_CONFIG');
    expect(out).toContain(join(repoRoot, 'server', 'schema', 'aalis-config.schema.json'));
    expect(out).toContain('@aalis/server/config.schema.json');
  });
});

describe('--check', slow, () => {
  test('prints the resolved configuration with every secret masked; a failing MCP server is exit 1 with its reason', async () => {
    const secrets = {
      AALIS_TEST_OPENAI_KEY: 'sk-secret-openai-0001',
      AALIS_TEST_TOKEN: 'secret-token-0002',
      GITHUB_PAT: 'ghp_secret0003',
      SOME_VALUE: 'shown-through-plain-name-0004', // neither its name nor where it goes says secret: shown
    };
    const literal = {
      metrics: 'secret-metrics-0005',
      envKey: 'secret-env-key-0006',
      header: 'Bearer secret-header-0007',
      arg: 'secret-arg-0008',
      password: 'secret-password-0009',
    };
    const path = configFile({
      provider: {
        name: 'openai',
        apiKey: '${AALIS_TEST_OPENAI_KEY}',
        baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
      },
      token: '${AALIS_TEST_TOKEN}',
      metricsToken: literal.metrics,
      mcpServers: {
        local: {
          command: 'aalis-test-no-such-command',
          args: ['--api-key', literal.arg, '--name=${SOME_VALUE}'],
          env: { SERVICE_API_KEY: literal.envKey, GITHUB_TOKEN: '${GITHUB_PAT}', REGION: 'eu-west' },
        },
        remote: {
          url: `http://user:${literal.password}@127.0.0.1:${await closedPort()}/mcp`,
          headers: { Authorization: literal.header, 'X-Team': 'support' },
        },
      },
    });
    const { code, out, err } = await run(['--config', path, '--check'], secrets);
    for (const secret of [...Object.values(secrets).slice(0, 3), ...Object.values(literal)]) {
      expect(out).not.toContain(secret);
      expect(err).not.toContain(secret);
    }
    expect(code).toBe(1);
    expect(out).toContain(`aalis-server: ${path} is valid`);
    const resolved = JSON.parse(out.slice(out.indexOf('{'), out.indexOf('\n}\n') + 2));
    expect(resolved.provider).toMatchObject({ name: 'openai', model: 'gpt-4o-mini', apiKey: '***' });
    expect(resolved).toMatchObject({ token: '***', metricsToken: '***', builtinTools: [] });
    expect(resolved.mcpServers.local).toEqual({
      command: 'aalis-test-no-such-command',
      args: ['--api-key', '***', '--name=shown-through-plain-name-0004'],
      env: { SERVICE_API_KEY: '***', GITHUB_TOKEN: '***', REGION: 'eu-west' },
      cwd: dir,
    });
    expect(resolved.mcpServers.remote.headers).toEqual({ Authorization: '***', 'X-Team': 'support' });
    expect(resolved.mcpServers.remote.url).toMatch(/^http:\/\/user:\*\*\*@127\.0\.0\.1:\d+\/mcp$/);
    // Each failure: one line, on stderr, with its reason.
    const failures = err.trim().split('\n');
    expect(failures).toHaveLength(2);
    expect(failures.find((line) => line.startsWith('aalis-server: MCP server local failed: '))).toBeDefined();
    expect(
      failures.find((line) => line.startsWith('aalis-server: MCP server remote failed: ')),
    ).toBeDefined();
    expect(out).toMatch(/^ {2}local: failed: .+$/m);
  });

  test('exit 0 when valid and every MCP server answered, with its tools listed', async () => {
    const path = configFile({
      provider: { name: 'demo' },
      mcpServers: {
        everything: {
          command: 'npx',
          args: ['--no-install', 'mcp-server-everything'],
          cwd: repoRoot, // where it is installed
          tools: ['echo', 'get-sum'],
        },
      },
    });
    const { code, out, err } = await run(['--config', path, '--check']);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^ {2}everything: 2 tools\n {4}echo: .+\n {4}get-sum: .+$/m);
  });

  test('builtinTools by default: all of them with the demo model, none with a real provider', async () => {
    const path = configFile({ systemPrompt: 'Be brief.' });
    const builtinsOf = async (env: Record<string, string>) => {
      const { code, out } = await run(['--config', path, '--check'], env);
      expect(code).toBe(0);
      expect(out).toContain('MCP servers: none');
      return JSON.parse(out.slice(out.indexOf('{'), out.indexOf('\n}\n') + 2)).builtinTools;
    };
    expect(await builtinsOf({})).toEqual(builtinTools().map((tool) => tool.name));
    const real = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1` };
    expect(await builtinsOf(real)).toEqual([]);
  });

  test('says which variables won over the file', async () => {
    const path = configFile({ port: 9000, logLevel: 'debug', provider: { name: 'demo' } });
    const { code, out } = await run(['--config', path, '--check'], { PORT: '9001', AALIS_PROVIDER: 'demo' });
    expect(code).toBe(0);
    expect(out).toContain('"port": 9001');
    expect(out).toContain('set by the environment, over the file: AALIS_PROVIDER, PORT');
  });
});

describe('every mistake at once, each naming its field and what it takes', slow, () => {
  test.concurrent('in the file and the environment: a line each, with --check and at start', async () => {
    const path = configFile({ sytemPrompt: 'Be brief.', mcpServers: { files: { args: ['.'] } } });
    for (const args of [
      ['--config', path, '--check'],
      ['--config', path],
    ]) {
      const { code, out, err } = await run(args, { AALIS_MAX_CONCURRENT_TURNS: 'lots' });
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toBe(
        [
          `aalis-server: ${path}: unknown key "sytemPrompt" (did you mean "systemPrompt"?)`,
          `aalis-server: ${path}: mcpServers.files.command: required: the program to run (npx, node, uvx, a path)`,
          'aalis-server: AALIS_MAX_CONCURRENT_TURNS must be a whole number (0 for no limit); it is "lots"',
          '',
        ].join('\n'),
      );
    }
  });
});

describe('a failing MCP server: its exit code and the last lines of its stderr', slow, () => {
  const boom = {
    command: process.execPath,
    args: ['-e', "console.error('starting up'); console.error('boom: missing API key'); process.exit(3)"],
  };
  const reason = 'the process exited with code 3 before it answered';

  test.concurrent('--check', async () => {
    const path = configFile({ provider: { name: 'demo' }, mcpServers: { boom } });
    const { code, out, err } = await run(['--config', path, '--check']);
    expect(code).toBe(1);
    expect(out).toContain(
      `  boom: failed: ${reason}; the last lines of its stderr:\n    starting up\n    boom: missing API key\n`,
    );
    expect(err).toBe(
      `aalis-server: MCP server boom failed: ${reason}; its stderr: starting up | boom: missing API key\n`,
    );
  });

  test.concurrent('a normal start logs it, and serves meanwhile', async () => {
    const path = configFile({ provider: { name: 'demo' }, dataDir: ':memory:', mcpServers: { boom } });
    const cli = await startCli({ AALIS_CONFIG: path, PORT: '0' }, dir);
    try {
      const [line] = await cli.waitForOutput(/^.*"mcpServer":"boom".*$/m);
      expect(JSON.parse(line)).toMatchObject({
        level: 40,
        mcpServer: 'boom',
        reason,
        stderr: ['starting up', 'boom: missing API key'],
        msg: 'MCP server unavailable: its tools are left out until it is back',
      });
      expect((await fetch(`${cli.base}/healthz`)).status).toBe(200);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  test.concurrent('whatever it writes, what is said of it stays small', async () => {
    const flood = {
      command: process.execPath,
      args: [
        '-e',
        "process.stderr.write('x'.repeat(1 << 20) + '\\n' + 'one more line\\n'.repeat(80000), () => process.exit(1))",
      ],
    };
    const path = configFile({ provider: { name: 'demo' }, mcpServers: { flood } });
    const { code, out, err } = await run(['--config', path, '--check']);
    expect(code).toBe(1);
    expect(err).toMatch(
      /^aalis-server: MCP server flood failed: the process exited with code 1 before it answered; its stderr: one more line \| one more line/,
    );
    // 2 MB written; at most 20 lines, 4 KB, are kept.
    expect(err.length).toBeLessThan(4_096 + 200);
    expect(out.length).toBeLessThan(10_000);
  });
});

describe('serving with a configuration file', slow, () => {
  test("the file's provider, model and system prompt reach the model, the environment wins, and no built-in tool is offered with a real provider", async () => {
    const upstream = await startFakeUpstream([{ body: textAnswer('Hello from the shop.'), byEvent: true }]);
    writeFileSync(join(dir, 'shop-prompt.md'), 'You answer for the shop, briefly.\n');
    // The file's port is taken: PORT=0 from the environment must win.
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const path = configFile({
      $schema: '../server/schema/aalis-config.schema.json',
      provider: {
        name: 'openai',
        model: 'gpt-from-file',
        apiKey: '${AALIS_TEST_KEY}',
        baseUrl: `${upstream.url}/v1`,
      },
      port: (taken.address() as { port: number }).port,
      dataDir: ':memory:',
      logLevel: 'warn',
      systemPrompt: { file: 'shop-prompt.md' },
      welcome: 'Welcome to **the shop**.',
      starters: ['Where is my order?', 'Opening hours?'],
    });
    const cli = await startCli(
      { AALIS_CONFIG: path, AALIS_TEST_KEY: 'sk-from-variable', PORT: '0', AALIS_MODEL: 'gpt-from-env' },
      dir,
    );
    try {
      expect(cli.output()).toContain(`(provider openai, model gpt-from-env, history in memory`);
      expect(cli.output()).toContain(`configured by ${path}; answers to`);
      const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
      // The file's greeting reaches every tab, in ready.
      expect(await client.hello()).toMatchObject({
        welcome: 'Welcome to **the shop**.',
        starters: ['Where is my order?', 'Opening hours?'],
      });
      client.send({ type: 'send', text: 'hello' });
      expect((await client.turnEnd()).message.status).toBe('complete');
      client.socket.close();
      const request = upstream.requests[0]!;
      expect(request.headers.authorization).toBe('Bearer sk-from-variable');
      const body = request.body as {
        model: string;
        messages: Array<{ role: string; content: string }>;
        tools?: unknown[];
      };
      expect(body.model).toBe('gpt-from-env');
      expect(body.messages[0]).toEqual({ role: 'system', content: 'You answer for the shop, briefly.' });
      expect(body.tools ?? []).toEqual([]);
    } finally {
      cli.child.kill('SIGKILL');
      taken.close();
      await upstream.close();
    }
  });

  test('Anthropic from the file: its key and address, the output limit and thinking budget, the prompt as system', async () => {
    const upstream = await startFakeUpstream([
      { body: fixture('equivalent/text-answer/anthropic.sse'), pieces: 20 },
    ]);
    writeFileSync(join(dir, 'shop-prompt.md'), 'You answer for the shop, briefly.\n');
    const path = configFile({
      provider: {
        name: 'anthropic',
        apiKey: '${AALIS_TEST_KEY}',
        baseUrl: upstream.url,
        maxOutputTokens: 4096,
        reasoning: 2048,
      },
      dataDir: ':memory:',
      logLevel: 'warn',
      systemPrompt: { file: 'shop-prompt.md' },
    });
    const cli = await startCli(
      { AALIS_CONFIG: path, AALIS_TEST_KEY: 'sk-ant-from-variable', PORT: '0' },
      dir,
    );
    try {
      expect(cli.output()).toContain('(provider anthropic, model claude-haiku-4-5, history in memory');
      const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
      await client.hello();
      client.send({ type: 'send', text: 'hello' });
      expect((await client.turnEnd()).message.status).toBe('complete');
      client.socket.close();
      const request = upstream.requests[0]!;
      expect(request.path).toBe('/v1/messages');
      // The SDK (1.x) sends the key as a bearer token.
      expect(request.headers.authorization).toBe('Bearer sk-ant-from-variable');
      expect(request.headers['anthropic-version']).toBeTruthy();
      expect(request.body).toMatchObject({
        model: 'claude-haiku-4-5',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        system: 'You answer for the shop, briefly.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
        stream: true,
      });
    } finally {
      cli.child.kill('SIGKILL');
      await upstream.close();
    }
  });
});
