// Where the server's CPU goes under benchmark 2's load: the Aalis server under
// `node --cpu-prof` on core 0, warmed up, then SESSIONS sessions (default 200) streaming
// 25 fragments/s for 20 s. Prints the share of CPU time per package (self time), for the
// second in which the turns start, the middle, and the second in which they end.
//
//   node bench/profile-server.mjs [sessions] [server build dir, default server/dist]
//
// With `session` for sessions: bench/turn-cost.mjs's load instead (1,000 one-fragment
// sessions over 10 s, what a whole session costs), one window over the run, and the
// functions with the most self time listed as well.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOOL, forkService, root, runClients, startAalis } from './lib.mjs';

const perSession = process.argv[2] === 'session';
const sessions = perSession ? 1000 : Number(process.argv[2] ?? 200);
const dist = process.argv[3]; // default: the server as built
const seconds = perSession ? 10 : 20;
const profileDir = mkdtempSync(join(tmpdir(), 'aalis-profile-'));

const upstream = await forkService(
  join(root, 'bench/upstream.mjs'),
  // The tool Aalis runs in benchmark 2 as well.
  { FRAGMENTS: String(perSession ? 1 : seconds * 25), RATE: '25', TOOL_NAME: BENCH_TOOL },
  { cpu: 1 },
);
const server = await startAalis(`http://127.0.0.1:${upstream.port}`, {
  cpu: 0,
  dist,
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
});
const url = `ws://127.0.0.1:${server.port}/ws`;
await runClients({
  url,
  target: 'aalis',
  sessions: perSession ? 200 : 100,
  fragments: 1,
  staggerMs: 2000,
  text: 'warm-up',
  cpu: 1,
});
// The profile's timestamps are on the same monotonic clock, in microseconds.
const now = () => Number(process.hrtime.bigint() / 1000n);
const loadStart = now();
await runClients(
  perSession
    ? { url, target: 'aalis', sessions, fragments: 1, staggerMs: seconds * 1000, cpu: 1 }
    : { url, target: 'aalis', sessions, fragments: seconds * 25, cpu: 1 },
);
const loadEnd = now();
server.child.kill('SIGINT'); // A clean exit writes the profile.
await new Promise((resolve) => server.child.once('exit', resolve));
upstream.child.kill();

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
// PROFILE_OUT keeps the profile (for Chrome DevTools' Performance panel, or a script).
if (process.env.PROFILE_OUT) copyFileSync(join(profileDir, file), process.env.PROFILE_OUT);
rmSync(profileDir, { recursive: true });

/** Who a sample's own time belongs to: a package, our server, a part of Node, or V8. */
function owner({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  if (url.includes('undici')) return 'undici (fetch)';
  const pkg = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  if (url.includes('/dist/')) return `aalis ${url.replace(/.*\/dist\//, '').split('/')[0]}`;
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  return url;
}

/** The groups the report compares; everything else is "the rest". */
function group(who) {
  if (who === 'openai') return '`openai` SDK';
  if (who === 'undici (fetch)' || who === 'node internal/webstreams')
    return 'undici (`fetch`) and web streams';
  if (who === 'native writev') return 'socket writes (`writev`)';
  if (who === '(garbage collector)') return 'garbage collection';
  if (who.startsWith('aalis ')) return "Aalis's own code";
  return 'the rest';
}

const windows = perSession
  ? { 'whole run': [loadStart, loadEnd] }
  : {
      'turns starting (first 2 s)': [loadStart, loadStart + 2e6],
      middle: [loadStart + 5e6, loadEnd - 5e6],
      'turns ending (last 2 s)': [loadEnd - 2e6, loadEnd],
    };
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const groups = new Map();
for (const [name, [from, to]] of Object.entries(windows)) {
  const shares = new Map();
  let busy = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    if (time < from || time >= to) continue;
    const who = owner(nodes.get(profile.samples[i]).callFrame);
    if (who === '(idle)') continue;
    const ms = profile.timeDeltas[i] / 1000;
    busy += ms;
    shares.set(who, (shares.get(who) ?? 0) + ms);
  }
  if (perSession) {
    const byFunction = new Map();
    let t = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i];
      if (t < from || t >= to) continue;
      const { functionName, url, lineNumber } = nodes.get(profile.samples[i]).callFrame;
      if (functionName === '(idle)') continue;
      const key = `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'aalis ')}:${lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + profile.timeDeltas[i] / 1000);
    }
    console.log(`\nfunctions by self time, ms per session:`);
    for (const [key, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
      console.log(`  ${(ms / sessions).toFixed(3).padStart(6)}  ${key}`);
    }
  }
  const seconds = (to - from) / 1e6;
  console.log(`\n${name}: server busy ${Math.round((busy / 1000 / seconds) * 100)}% of the core`);
  for (const [who, ms] of [...shares].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`  ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${who}`);
  }
  for (const [who, ms] of shares) {
    const row = groups.get(group(who)) ?? {};
    row[name] = (row[name] ?? 0) + (ms / busy) * 100;
    groups.set(group(who), row);
  }
}
console.log(
  `\n| owner | ${Object.keys(windows).join(' | ')} |\n| --- |${' --- |'.repeat(Object.keys(windows).length)}`,
);
for (const [who, row] of groups) {
  console.log(
    `| ${who} | ${Object.keys(windows)
      .map((w) => `${(row[w] ?? 0).toFixed(1)}%`)
      .join(' | ')} |`,
  );
}
