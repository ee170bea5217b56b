// The peer's packages are the benchmark's alone: installed here, from this folder's
// lockfile, the first time a benchmark needs them; never by the project's `npm install`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('.', import.meta.url));

export function ensurePeerInstalled() {
  if (existsSync(`${folder}node_modules/ai/package.json`)) return;
  console.error('bench: installing the peer (ai, @ai-sdk/openai) into bench/peer…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: folder,
    stdio: 'inherit',
  });
}
