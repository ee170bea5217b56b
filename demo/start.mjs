// `npm start`: builds the server and runs it on http://127.0.0.1:8787 with history in
// ./.data (SQLite), on the demo model unless a provider key is set in the environment.
// The demo page itself is still being built; until it is, this runs the server alone.
import { spawnSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = spawnSync('npx', ['tsc', '-b', 'server'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('npm start: the build failed (see above).');
  process.exit(build.status ?? 1);
}
const env = { AALIS_DATA_DIR: `${root}.data`, ...process.env };
const server = spawn(process.execPath, ['server/bin/aalis-server.js'], { cwd: root, stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
