// Benchmarks 2 and 3: how many sessions one server core holds, for the Aalis server, the
// baseline relay and the AI SDK peer. Targets: `aalis` (history as BENCH_HISTORY says,
// durable SQLite in a fresh data folder by default, as users run it), `aalis-memory`
// (history in memory), `turn` (bench/baseline-turn-relay.mjs, a relay that does the
// turn's whole work), `baseline` (bench/baseline-relay.mjs, one round relayed as is) and
// `peer` (the AI SDK). The server runs alone on core 0; the fake upstream
// and the clients (one process, one connection per session) share core 1 (taskset).
// Every session streams one tool call at RATE fragments a second for SECONDS. Reports,
// per step: fragments delivered per second, p50/p99/max latency (also by where the
// fragment sits in its stream), fragments lost, final counts exact, server CPU per
// fragment, memory per session, and how busy the harness's core was.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BENCH_TOOL,
  forkService,
  matchArrivals,
  median,
  percentile,
  readWrites,
  root,
  runClients,
  startAalis,
} from './lib.mjs';
import { ensurePeerInstalled } from './peer/install.mjs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time of a process in clock ticks: user and kernel. */
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]), kernel: Number(fields[12]) };
}

/** Busy and total ticks of one core, from /proc/stat. */
function coreTicks(core) {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${core} `));
  const values = line.split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - values[3] - values[4], total }; // idle and iowait are not busy
}

function rssKb(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return Number(line.split(/\s+/)[1]);
  } catch {
    return 0; // The process is gone; the step will fail on its own.
  }
}

/** Streams shorter than this have no middle worth reporting apart from their ends. */
const PHASE_FRAGMENTS = 50;

/**
 * What one client run saw: latency percentiles, overall and by where the fragment sits in
 * its stream (the first 50, when turns start; the last 50, when they end; the middle);
 * fragments lost (never arrived, not even inside a collapsed progress frame); sessions
 * that ended on the exact final count; and arrivals that matched no write or came twice.
 */
function clientSummary(out, writes, sessions, fragments) {
  const all = matchArrivals(out.arrivals, writes);
  const phases = fragments >= 3 * PHASE_FRAGMENTS;
  const p99Of = (from, to) =>
    phases ? percentile(matchArrivals(out.arrivals, writes, (k) => k >= from && k <= to).latencies, 99) : NaN;
  return {
    p50: percentile(all.latencies, 50),
    p99: percentile(all.latencies, 99),
    max: all.latencies.at(-1),
    p99ByPhase: {
      start: p99Of(1, PHASE_FRAGMENTS),
      middle: p99Of(PHASE_FRAGMENTS + 1, fragments - PHASE_FRAGMENTS),
      end: p99Of(fragments - PHASE_FRAGMENTS + 1, fragments),
    },
    delivered: all.latencies.length,
    lost: sessions * fragments - all.latencies.length,
    // For Aalis the server's own count; the relay and the peer have none, so their
    // clients count what they received.
    finalExact: out.finalChars.filter((c) => c === fragments + 2).length,
    stuck: out.stuck,
    unmatched: all.unmatched,
    duplicates: all.duplicates,
  };
}

/** The scripts of the targets that are not Aalis, and what their upstream is told. */
const OTHERS = {
  peer: { script: 'bench/peer/server.mjs', env: { TOOL_NAME: BENCH_TOOL }, path: '/chat', scheme: 'http' },
  turn: { script: 'bench/baseline-turn-relay.mjs', env: {}, path: '', scheme: 'ws' },
  baseline: { script: 'bench/baseline-relay.mjs', env: {}, path: '', scheme: 'ws' },
};

/** What the client process speaks to a target (`aalis-memory` is the Aalis protocol). */
const clientOf = (target) => (target.startsWith('aalis') ? 'aalis' : target);

/**
 * Starts what a step measures on core 0; resolves with the process, the URL clients use
 * and, for Aalis, where its history lives.
 */
async function startTarget(target, upstreamUrl, serverEnv) {
  if (clientOf(target) === 'aalis') {
    const history = target === 'aalis-memory' ? 'memory' : undefined;
    const started = await startAalis(upstreamUrl, {
      cpu: 0,
      env: serverEnv,
      ...(history ? { history } : {}),
    });
    return { child: started.child, url: `ws://127.0.0.1:${started.port}/ws`, history: started.history };
  }
  const other = OTHERS[target];
  if (!other) throw new Error(`no target ${target}`);
  if (target === 'peer') ensurePeerInstalled();
  const { child, port } = await forkService(
    join(root, other.script),
    { UPSTREAM: upstreamUrl, ...other.env },
    { cpu: 0 },
  );
  return { child, url: `${other.scheme}://127.0.0.1:${port}${other.path}` };
}

/**
 * One step: a fresh upstream and server, `warmUp` one-fragment turns (a server fresh
 * from its start compiles every code path on first use; one that has been up a while
 * has done so), then `sessions` streaming turns, measured. With `recovery`, that many
 * sessions again on the same server once the load is gone: does it serve them normally?
 * `serverEnv` goes to the Aalis server's environment (bench/cluster-cost.mjs: Redis).
 */
export async function scaleStep(
  sessions,
  {
    rate = 25,
    seconds = 20,
    target = 'aalis',
    staggerMs = 1000,
    fragments = Math.round(rate * seconds),
    warmUp = 0,
    recovery = 0,
    serverEnv = {},
  } = {},
) {
  const upstream = await forkService(
    join(root, 'bench/upstream.mjs'),
    // Aalis, the turn relay and the peer run a tool they know, as a real turn does; the
    // first relay runs none (the tool's name tells its client the stream).
    {
      FRAGMENTS: String(fragments),
      RATE: String(rate),
      ...(target === 'baseline' ? {} : { TOOL_NAME: BENCH_TOOL }),
    },
    { cpu: 1 },
  );
  let server;
  try {
    const started = await startTarget(target, `http://127.0.0.1:${upstream.port}`, serverEnv);
    server = started.child;
    const { url } = started;
    const client = clientOf(target);
    if (warmUp)
      await runClients({
        url,
        target: client,
        sessions: warmUp,
        fragments: 1,
        staggerMs: 2000,
        text: 'warm-up',
        cpu: 1,
      });

    const rssBefore = rssKb(server.pid);
    const ticksBefore = cpuTicks(server.pid);
    const harnessBefore = coreTicks(1);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb(server.pid))), 500);
    const startedAt = performance.now();
    const out = await runClients({ url, target: client, sessions, fragments, staggerMs, cpu: 1 });
    const elapsed = (performance.now() - startedAt) / 1000;
    clearInterval(sampler);
    const ticksAfter = cpuTicks(server.pid);
    const harnessAfter = coreTicks(1);
    const kernelTicks = ticksAfter.kernel - ticksBefore.kernel;
    const ticks = ticksAfter.user - ticksBefore.user + kernelTicks;
    const after = recovery
      ? await runClients({ url, target: client, sessions: recovery, fragments, staggerMs, cpu: 1 })
      : undefined;
    const writes = await readWrites(`http://127.0.0.1:${upstream.port}`);
    const summary = clientSummary(out, writes, sessions, fragments);
    return {
      target,
      ...(started.history ? { history: started.history } : {}),
      sessions,
      fragmentsPerSecond: Math.round(summary.delivered / elapsed),
      ...summary,
      cpuMsPerFragment: ((ticks / TICKS_PER_SECOND) * 1000) / Math.max(1, summary.delivered),
      cpuMsPerSession: ((ticks / TICKS_PER_SECOND) * 1000) / sessions,
      cpuShare: ticks / TICKS_PER_SECOND / elapsed,
      // The upstream and the clients share core 1: near 100%, the harness is the limit.
      harnessCoreBusy:
        (harnessAfter.busy - harnessBefore.busy) / Math.max(1, harnessAfter.total - harnessBefore.total),
      memoryKbPerSession: Math.round((rssPeak - rssBefore) / sessions),
      ...(after
        ? { recovery: { sessions: recovery, ...clientSummary(after, writes, recovery, fragments) } }
        : {}),
    };
  } finally {
    server?.kill('SIGKILL');
    upstream.child.kill('SIGKILL');
  }
}

/** Figures whose median over runs a step reports; lost, exact and stuck report the worst run. */
const MEDIAN_OF_RUNS = [
  'fragmentsPerSecond',
  'p50',
  'p99',
  'max',
  'cpuMsPerFragment',
  'cpuMsPerSession',
  'cpuShare',
  'harnessCoreBusy',
  'memoryKbPerSession',
];

function medianOfRuns(runs) {
  const step = { ...runs[0], runs: runs.length, p99s: runs.map((r) => r.p99) };
  for (const key of MEDIAN_OF_RUNS) step[key] = median(runs.map((r) => r[key]));
  step.p99ByPhase = Object.fromEntries(
    Object.keys(runs[0].p99ByPhase).map((phase) => [phase, median(runs.map((r) => r.p99ByPhase[phase]))]),
  );
  for (const key of ['lost', 'unmatched', 'duplicates', 'stuck'])
    step[key] = Math.max(...runs.map((r) => r[key]));
  step.finalExact = Math.min(...runs.map((r) => r.finalExact));
  return step;
}

/**
 * Steps the session count up through the Aalis server (durable history, then history in
 * memory), the baseline relay and the AI SDK peer: each count `repeats` times per target, each run on a fresh server warmed up with
 * `warmUp` one-fragment turns. A target steps on while its median p99 stays within the
 * bound; one that misses the first step gets one try at half of it, so that every target
 * has a count to compare. `largest[target]` is the largest count within the bound, and
 * `atLeast[target]` is true when the target still passed the last step (the count is a
 * lower bound then). Then 1,000 sessions through Aalis as overload (one run), followed
 * on the same server by a normal load: does it recover?
 */
export async function scaleBench({
  steps = [50, 100, 150, 200, 300],
  overload = 1000,
  seconds = 20,
  boundMs = 50,
  repeats = 3,
  warmUp = 100,
  // Durable history first, as users run it; memory second.
  targets = ['aalis', 'aalis-memory', 'baseline', 'peer'],
} = {}) {
  const results = [];
  const largest = {};
  const measure = async (target, sessions) => {
    const runs = [];
    for (let i = 0; i < repeats; i++) runs.push(await scaleStep(sessions, { seconds, target, warmUp }));
    const step = medianOfRuns(runs);
    results.push(step);
    console.error(
      `scale: ${target}, ${sessions} sessions: p99 ${step.p99s.map((p) => p.toFixed(1)).join(' / ')} ms`,
    );
    return step.p99 <= boundMs;
  };
  const stepping = new Set(targets);
  for (const [index, sessions] of steps.entries()) {
    for (const target of targets.filter((t) => stepping.has(t))) {
      if (await measure(target, sessions)) largest[target] = sessions;
      else {
        stepping.delete(target);
        if (index === 0 && (await measure(target, sessions / 2))) largest[target] = sessions / 2;
      }
    }
    if (!stepping.size) break;
  }
  const atLeast = Object.fromEntries(targets.map((t) => [t, stepping.has(t)]));
  // The overload runs Aalis as users run it (history as BENCH_HISTORY says, durable by default).
  const overloaded = await scaleStep(overload, { seconds, warmUp, recovery: steps[0] });
  console.error(
    `scale: ${overload} sessions: p99 ${overloaded.p99.toFixed(1)} ms, then ${steps[0]}: ${overloaded.recovery.p99.toFixed(1)} ms`,
  );
  return { results, largest, atLeast, overloaded, boundMs, repeats, warmUp, seconds };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sessions = Number(process.argv[2] ?? 100);
  const options = {
    seconds: Number(process.argv[3] ?? 20),
    target: process.argv[4] ?? 'aalis',
    warmUp: Number(process.argv[5] ?? 100),
  };
  console.log(JSON.stringify(await scaleStep(sessions, options), null, 2));
}
