/**
 * The packages as a registry would hand them out: packed by `npm run pack:all`,
 * the tarballs installed into an empty project outside this repository (its other
 * dependencies from the npm registry), and used there the four ways a site owner does:
 * the protocol imported in Node, `npx aalis-server` serving the widget and health, the
 * Fastify plugin in a ten-line app, and a page importing the widget built with Vite.
 * A dependency missing from a package.json, or a `files` entry that leaves out what
 * runs, fails here and nowhere else.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { watchOutput } from '../../server/test/cli-harness.js';
import { freePort } from './e2e-harness.js';
import { WIDGET_PARTS } from '../../server/src/transport/widget-file.js';

const root = new URL('../..', import.meta.url).pathname;
const project = mkdtempSync(join(tmpdir(), 'aalis-installed-'));
const children: ChildProcess[] = [];

const run = (command: string, args: string[], cwd = project): string =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });

/** What `npm install` of the tarballs printed on stderr: warnings a site owner would see. */
let installWarnings: string[] = [];

beforeAll(() => {
  const packed = join(project, 'packed');
  const tarballs = run('node', [join(root, 'scripts/pack-all.mjs'), packed], root)
    .trim()
    .split('\n');
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'a-site',
      private: true,
      type: 'module',
      // What a site owner allows: Vite's bundler. The server needs no install script at all
      // (its SQLite is Node's own).
      allowScripts: { esbuild: true },
    }),
  );
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', ...tarballs, 'vite@~8.4.0'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (install.status !== 0) throw new Error(`npm install failed:\n${install.stderr}`);
  installWarnings = install.stderr.split('\n').filter((line) => /\bwarn/i.test(line));
}, 600_000);

test('installing the packed packages prints no warning (no engine mismatch, nothing deprecated)', () => {
  expect(installWarnings).toEqual([]);
});

afterAll(() => {
  // Each command runs in its own process group: `npx` starts the server as a grandchild,
  // which a kill of `npx` alone would leave running after the tests.
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  rmSync(project, { recursive: true, force: true });
  // A whole node_modules to remove: more than the default 10 s on a busy machine.
}, 60_000);

test('@aalis/protocol imports in Node and decodes a frame', () => {
  const out = run('node', [
    '--input-type=module',
    '-e',
    `import { decodeClientFrame, PROTOCOL_VERSION } from '@aalis/protocol';
     const good = decodeClientFrame(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION }));
     const bad = decodeClientFrame('{"type":"send"}');
     console.log(JSON.stringify([good.ok, bad.ok, bad.error?.message]));`,
  ]);
  expect(JSON.parse(out)).toEqual([true, false, 'send.text: required']);
});

/**
 * Starts a command that serves HTTP; resolves with its base URL once it has printed
 * `listening` (its start line) and answers.
 */
async function serve(
  command: string,
  args: string[],
  env: Record<string, string>,
  listening = /listening/,
): Promise<string> {
  const port = await freePort();
  const child = spawn(command, args, {
    detached: true,
    cwd: project,
    env: { PATH: process.env.PATH!, PORT: String(port), LOG_LEVEL: 'warn', ...env },
  });
  children.push(child);
  const { waitForOutput } = watchOutput(child);
  await waitForOutput(listening, 20_000).catch((error: Error) => {
    throw new Error(`${command} ${args.join(' ')} did not start: ${error.message}`);
  });
  const base = `http://127.0.0.1:${port}`;
  expect((await fetch(`${base}/healthz`)).ok).toBe(true);
  return base;
}

test('npx aalis-server serves the widget, its parts, the console and health from the installed packages', async () => {
  const base = await serve('npx', ['aalis-server'], {
    AALIS_DATA_DIR: join(project, 'data'),
    AALIS_ADMIN_TOKEN: 'owner-token-0123456789',
  });
  expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
  const script = await fetch(`${base}/aalis-chat.js`);
  expect(script.status).toBe(200);
  expect(await script.text()).toContain('aalis-chat');
  // And the parts it loads from beside itself: the package carries them.
  for (const part of WIDGET_PARTS)
    expect([part, (await fetch(`${base}/${part}`)).status]).toEqual([part, 200]);
  // The owner's console: its page, and its script from the installed widget package.
  expect((await fetch(`${base}/admin`)).status).toBe(200);
  const consoleScript = await fetch(`${base}/admin/aalis-console.js`);
  expect(consoleScript.status).toBe(200);
  expect(await consoleScript.text()).toContain('aalis-console');
}, 60_000);

test('the Fastify plugin runs in a ten-line app', async () => {
  writeFileSync(
    join(project, 'app.js'),
    `import Fastify from 'fastify';
import { aalisChat, DemoProvider, MemoryHistoryStore } from '@aalis/server';

const app = Fastify({ logger: true });
await app.register(aalisChat, {
  provider: new DemoProvider(),
  model: 'aalis-demo',
  store: new MemoryHistoryStore(),
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`,
  );
  const base = await serve('node', ['app.js'], {});
  expect((await fetch(`${base}/aalis-chat.js`)).status).toBe(200);
}, 60_000);

test('a page importing @aalis/widget builds with Vite', () => {
  writeFileSync(
    join(project, 'index.html'),
    '<aalis-chat server="http://127.0.0.1:8787"></aalis-chat><script type="module" src="/main.js"></script>',
  );
  writeFileSync(
    join(project, 'main.js'),
    "import '@aalis/widget';\nconsole.log(customElements.get('aalis-chat'));\n",
  );
  run('npx', ['vite', 'build', '--logLevel', 'error']);
  const assets = readdirSync(join(project, 'dist', 'assets'));
  expect(assets.some((file) => file.endsWith('.js'))).toBe(true);
  // The code that draws a bot challenge stays a chunk of its own, loaded only when asked.
  expect(assets.some((file) => /^challenge-provider-.*\.js$/.test(file))).toBe(true);
  // So do an MCP server's form and the MCP App host, which imports ext-apps from the
  // page's own dependencies (the package leaves it external).
  expect(assets.some((file) => /^elicitation-element-.*\.js$/.test(file))).toBe(true);
  // And the views most chats never show (widget/src/shared/lazy-view.ts), one chunk each.
  const views = ['approval-cards', 'handoff-view', 'conversations-view', 'versions-view', 'feedback-form'];
  for (const view of views)
    expect(
      assets.some((file) => file.startsWith(`${view}-`)),
      view,
    ).toBe(true);
  const appHost = assets.find((file) => /^mcp-app-element-.*\.js$/.test(file));
  expect(readFileSync(join(project, 'dist', 'assets', appHost!), 'utf8')).toContain('ui/initialize');
}, 120_000);
