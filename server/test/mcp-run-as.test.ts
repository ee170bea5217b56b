/**
 * A stdio MCP server run as another user (`"user"`, `"group"`), through the real
 * `aalis-server` (built) and a real model round: the probe server (written below with the
 * SDK) says who it runs as and what of its parent it can read. As `nobody` it can read
 * neither the server's `/proc/<pid>/environ` nor its secret file; as the server's own user
 * it can read both (the reason for `user`). Switching needs root: run as anyone else, the
 * server refuses to start with one line, and this file asserts that line instead, so it
 * never passes without checking something.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { AALIS_SERVER_BIN, startCli } from './cli-harness.js';
import { completionChunk, sse, startFakeUpstream, textAnswer, usageChunk } from './fake-upstream.js';
import { stopProcess } from './services/processes.js';
import { TestClient } from './ws-harness.js';

const isRoot = process.getuid?.() === 0;

// Everything the probe needs must be readable by nobody: the directory 0755, files 0644.
const dir = mkdtempSync(join(tmpdir(), 'aalis-mcp-run-as-'));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A node nobody may run: this one may live in a home only its owner enters (/root). A
 * hard link costs nothing; a copy where links cannot go.
 */
function nodeForAnyone(): string {
  const path = join(dir, 'node');
  if (existsSync(path)) return path;
  try {
    linkSync(process.execPath, path);
  } catch {
    copyFileSync(process.execPath, path);
    chmodSync(path, 0o755);
  }
  return path;
}

/** The SDK's ES modules, by absolute URL: the probe lives outside any node_modules. */
const sdkModule = (name: string) =>
  pathToFileURL(
    createRequire(import.meta.url)
      .resolve(`@modelcontextprotocol/sdk/server/${name}.js`)
      .replace(`${join('dist', 'cjs')}`, join('dist', 'esm')),
  ).href;

const PROBE = join(dir, 'probe-server.mjs');
writeFileSync(
  PROBE,
  `import { readFileSync } from 'node:fs';
import { McpServer } from '${sdkModule('mcp')}';
import { StdioServerTransport } from '${sdkModule('stdio')}';

const attempt = (path) => {
  try {
    readFileSync(path);
    return 'read';
  } catch (error) {
    return error.code;
  }
};
const server = new McpServer({ name: 'probe', version: '1.0.0' });
server.registerTool('probe', { description: 'Who this server runs as, and what of its parent it can read.' }, async () => ({
  content: [{ type: 'text', text: JSON.stringify({
    uid: process.getuid(),
    gid: process.getgid(),
    groups: process.getgroups(),
    home: process.env.HOME,
    environ: attempt(\`/proc/\${process.ppid}/environ\`),
    secretFile: attempt(process.env.SECRET_PATH),
  }) }],
}));
await server.connect(new StdioServerTransport());
`,
  { mode: 0o644 },
);

let count = 0;
function configFile(mcpServers: Record<string, unknown>): string {
  const path = join(dir, `config-${++count}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers }), { mode: 0o644 });
  return path;
}

function run(command: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(command, args, { env: { PATH: process.env.PATH!, HOME: dir, ...env }, cwd: dir });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** A model round that calls every offered tool named `*probe`, all at once. */
function callProbes(offered: string[]): string {
  return sse([
    completionChunk({ role: 'assistant', content: null }),
    ...offered.map((name, index) =>
      completionChunk({
        tool_calls: [{ index, id: `call_${name}`, type: 'function', function: { name, arguments: '{}' } }],
      }),
    ),
    completionChunk({}, 'tool_calls'),
    usageChunk(10, 5),
  ]);
}

interface Probe {
  uid: number;
  gid: number;
  groups: number[];
  home?: string;
  environ: string;
  secretFile: string;
}

const slow = { timeout: 60_000 };

describe.runIf(isRoot)('as root: each MCP server runs as the user it names', slow, () => {
  test('as nobody it reads neither /proc/<server>/environ nor the secret file; as the server it reads both', async () => {
    const key = 'sk-kept-in-a-file-0600';
    const keyFile = join(dir, 'openai-key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const probe = { command: nodeForAnyone(), args: [PROBE], env: { SECRET_PATH: keyFile } };
    const path = configFile({
      nobody: { ...probe, user: 'nobody' },
      grouped: { ...probe, user: 'nobody', group: '12345' },
      same: probe,
    });
    const upstream = await startFakeUpstream((request) => {
      const body = request.body as {
        messages: Array<{ role: string }>;
        tools?: Array<{ function: { name: string } }>;
      };
      if (body.messages.at(-1)?.role === 'tool') return { body: textAnswer('probed') };
      const probes = (body.tools ?? [])
        .map((tool) => tool.function.name)
        .filter((name) => name.endsWith('probe'));
      return { body: callProbes(probes) };
    });
    let cli: Awaited<ReturnType<typeof startCli>> | undefined;
    try {
      cli = await startCli(
        {
          AALIS_CONFIG: path,
          AALIS_PROVIDER: 'openai',
          OPENAI_API_KEY_FILE: keyFile,
          OPENAI_BASE_URL: `${upstream.url}/v1`,
          AALIS_DATA_DIR: ':memory:',
          PORT: '0',
        },
        dir,
      );
      for (const server of ['nobody', 'grouped', 'same'])
        await cli.waitForOutput(
          new RegExp(`^.*"mcpServer":"${server}".*"msg":"MCP server connected".*$`, 'm'),
        );

      const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
      await client.hello();
      client.send({ type: 'send', text: 'probe' });
      expect((await client.turnEnd()).message.status).toBe('complete');
      client.socket.close();

      const messages = (
        upstream.requests[1]!.body as {
          messages: Array<{ role: string; tool_call_id?: string; content: string }>;
        }
      ).messages;
      const probed = (name: string): Probe => {
        const message = messages.find((m) => m.role === 'tool' && m.tool_call_id === `call_${name}_probe`);
        expect(message, `the result of ${name}_probe`).toBeDefined();
        return JSON.parse(message!.content) as Probe;
      };
      expect(probed('nobody')).toEqual({
        uid: 65534,
        gid: 65534,
        groups: [65534],
        home: '/nonexistent',
        environ: 'EACCES',
        secretFile: 'EACCES',
      });
      // Root's groups (0 among them) never come along; a gid without an entry is taken as given.
      expect(probed('grouped')).toMatchObject({
        uid: 65534,
        gid: 12345,
        environ: 'EACCES',
        secretFile: 'EACCES',
      });
      expect(probed('grouped').groups).not.toContain(0);
      // The reason for "user": the server's own user reads both.
      expect(probed('same')).toMatchObject({ uid: 0, environ: 'read', secretFile: 'read' });
    } finally {
      if (cli) await stopProcess(cli.child as ChildProcess);
      await upstream.close();
    }
  });
});

describe('a user it cannot run as is one line at start, and exit 2', slow, () => {
  test.concurrent(
    isRoot ? 'run as nobody, the server cannot switch to root' : 'not root, the server cannot switch to root',
    async () => {
      // As root, the side this machine does not take is checked by running the server as nobody.
      const path = configFile({ probe: { command: 'node', args: [PROBE], user: 'root' } });
      const [command, prefix] = isRoot
        ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', nodeForAnyone()]]
        : [process.execPath, []];
      const uid = isRoot ? 65534 : process.getuid!();
      for (const args of [['--check'], []]) {
        const { code, out, err } = await run(
          command,
          [...prefix, AALIS_SERVER_BIN, '--config', path, ...args],
          {
            AALIS_PROVIDER: 'demo',
            AALIS_DATA_DIR: ':memory:',
            PORT: '0',
          },
        );
        expect(out).toBe('');
        expect(err).toBe(
          `aalis-server: ${path}: mcpServers.probe.user: running it as "root" needs aalis-server to run as root, and it runs as uid ${uid}: start it as root, or remove "user"\n`,
        );
        expect(code).toBe(2);
      }
    },
  );

  test.concurrent.each([
    [
      { user: 'aalis-no-such-user' },
      'mcpServers.probe.user: there is no user "aalis-no-such-user" on this system',
    ],
    [
      { user: 'nobody', group: 'aalis-no-such-group' },
      'mcpServers.probe.group: there is no group "aalis-no-such-group" on this system',
    ],
    [
      { user: '4242424' },
      'mcpServers.probe.user: uid 4242424 has no entry in the user database: name its "group" too',
    ],
    [{ group: 'nogroup' }, /^mcpServers\.probe\.user: required with group: the user it runs as/],
  ])('%j', async (runAs, line) => {
    const path = configFile({ probe: { command: 'node', args: [PROBE], ...runAs } });
    const { code, out, err } = await run(process.execPath, [AALIS_SERVER_BIN, '--config', path, '--check'], {
      AALIS_PROVIDER: 'demo',
    });
    expect(out).toBe('');
    const said = err.replace(`aalis-server: ${path}: `, '').trimEnd();
    if (typeof line === 'string') expect(said).toBe(line);
    else expect(said).toMatch(line);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(code).toBe(2);
  });
});
