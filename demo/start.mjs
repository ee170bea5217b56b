// `npm start`: builds the server and the widget, then runs the demo on
// http://127.0.0.1:8787 with SQLite history in ./.data and the reference MCP server
// (demo/aalis.demo.json), on the scripted demo model
// unless OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY or OLLAMA_HOST is set
// (AALIS_PROVIDER picks one by name, openai-responses among them).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** When the file was last written; 0 when it does not exist. */
const mtimeOf = (path) => {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return 0;
  }
};
/** The newest write below these folders. */
const newestMtime = (folders) =>
  Math.max(
    ...folders.flatMap((folder) =>
      readdirSync(join(root, folder), { recursive: true }).map((file) => mtimeOf(join(folder, String(file)))),
    ),
  );
const step = (what, command, args) => {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`npm start: ${what} failed (see above).`);
    process.exit(result.status ?? 1);
  }
};
// tsc -b is incremental on its own; the widget's bundle is rebuilt only when a source it
// is made from is newer than it (a start without changes skips about 5 s of Vite).
step('building the server', 'npx', ['tsc', '-b', 'server']);
if (newestMtime(['widget/src', 'protocol/src']) > mtimeOf('widget/dist/aalis-chat.js')) {
  step('building the widget', 'npm', ['run', 'build', '--silent', '-w', '@aalis/widget']);
}

// The demo's own configuration adds the reference MCP servers (devDependencies), so that
// the MCP scenarios run real MCP servers: a tool with its progress, a form, an app.
// AALIS_CONFIG names another.
const env = {
  AALIS_DATA_DIR: `${root}.data`,
  AALIS_CONFIG: join(root, 'demo/aalis.demo.json'),
  LOG_LEVEL: 'warn',
  ...process.env,
};
const { startDemo } = await import('./app.mjs');
const { describeHosts, listenProblem, loadConfig } = await import('@aalis/server');
let demo;
try {
  demo = await startDemo(env);
} catch (error) {
  // Every start-up failure we can explain is one line and exit 2, like aalis-server.
  const problem =
    error?.name === 'ConfigError' ? error.message : listenProblem(error, error?.config ?? loadConfig(env));
  if (!problem) throw error;
  console.error(`npm start: ${problem}`);
  process.exit(2);
}
const { name, model } = demo.provider ?? {};
// Any other name gets 403 (DNS rebinding): to open the demo from another machine, set
// HOST=0.0.0.0 and AALIS_PUBLIC_HOSTS to the name or address it is opened by.
const hosts = describeHosts(demo.config.publicHosts);
console.log(`
  Aalis Chat demo: ${demo.url}

  model:   ${demo.agent ? `an agent (${demo.agent.protocol}) answers` : name === 'demo' ? 'the scripted demo model (set OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY or OLLAMA_HOST for a real one; AALIS_PROVIDER=openai-responses for the Responses API)' : `${name}, ${model}`}
  history: ${env.AALIS_DATA_DIR}/aalis.sqlite
  widget:  ${demo.url}/aalis-chat.js
  hosts:   ${hosts} (AALIS_PUBLIC_HOSTS adds names)
  console: ${demo.config.adminToken ? `${demo.url}/admin${demo.config.handoff ? ' (a person answers there: AALIS_HANDOFF is on)' : ''}` : 'off (set AALIS_ADMIN_TOKEN, 16+ characters, for /admin; AALIS_HANDOFF=on to answer visitors there)'}

  Ctrl+C to stop.
`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await demo.close();
    process.exit(0);
  });
}
