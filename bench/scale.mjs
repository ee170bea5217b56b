// Benchmarks 2 and 3: how many sessions one server core holds, and the same for the AI SDK peer. The server runs alone on core 0;
// the fake upstream and the clients (one process, one socket per session) share core 1
// (taskset). Every session streams one tool call at RATE fragments a second for SECONDS.
// Steps the session count up and reports, per step: fragments delivered per second,
// p50/p99/max latency, fragments lost, final counts exact, server CPU per fragment and
// memory per session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  forkService,
  latenciesOf,
  median,
  percentile,
  readWrites,
  root,
  runScript,
  startAalis,
} from './lib.mjs';
import { ensurePeerInstalled } from './peer/install.mjs';

const TICKS_PER_SECOND = 100;

/** CPU time of a process in clock ticks: user and kernel (socket I/O is mostly kernel). */
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]), kernel: Number(fields[12]) };
}

function rssKb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]);
}

/** One client process running `sessions` turns; resolves with what it printed. */
async function runClients(url, target, sessions, fragments, staggerMs) {
  const env = {
    URL: url,
    TARGET: target,
    SESSIONS: String(sessions),
    FRAGMENTS: String(fragments),
    STAGGER_MS: String(staggerMs),
  };
  return JSON.parse(await runScript(join(root, 'bench/latency-client.mjs'), env, { cpu: 1 }));
}

/**
 * Latency percentiles of one client run, overall and by where the fragment sits in its
 * stream (the first and last 50 fragments, when turns start and end, and the middle);
 * and how many sessions ended on the exact final count.
 */
function latencySummary(out, writes, fragments) {
  const latencies = latenciesOf(out.arrivals, writes);
  const p99Of = (from, to) =>
    percentile(
      latenciesOf(
        out.arrivals.filter(([, k]) => k >= from && k <= to),
        writes,
      ),
      99,
    );
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1),
    p99ByPhase: {
      start: p99Of(1, 50),
      middle: p99Of(51, fragments - 50),
      end: p99Of(fragments - 49, fragments),
    },
    // Progress may collapse under backpressure; what a session ends on must be exact.
    finalExact: out.finalChars.filter((c) => c === fragments + 2).length,
  };
}

/** Starts what a step measures on core 0; resolves with the process and the URL clients use. */
async function startTarget(target, upstreamUrl) {
  if (target === 'aalis') {
    const { child, port } = await startAalis(upstreamUrl, { cpu: 0 });
    return { child, url: `ws://127.0.0.1:${port}/ws` };
  }
  if (target === 'peer') {
    ensurePeerInstalled();
    const { child, port } = await forkService(
      join(root, 'bench/peer/server.mjs'),
      { UPSTREAM: upstreamUrl, TOOL_NAME: 'bench_tool' },
      { cpu: 0 },
    );
    return { child, url: `http://127.0.0.1:${port}/chat` };
  }
  const { child, port } = await forkService(
    join(root, 'bench/baseline-relay.mjs'),
    { UPSTREAM: upstreamUrl },
    { cpu: 0 },
  );
  return { child, url: `ws://127.0.0.1:${port}` };
}

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
  } = {},
) {
  const upstream = await forkService(
    join(root, 'bench/upstream.mjs'),
    // The peer runs only the tool it declares; its client tells streams by call id.
    {
      FRAGMENTS: String(fragments),
      RATE: String(rate),
      ...(target === 'peer' ? { TOOL_NAME: 'bench_tool' } : {}),
    },
    { cpu: 1 },
  );
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  // The same load through the baseline relay and the peer, on the same core.
  const { child: server, url } = await startTarget(target, upstreamUrl);
  try {
    // A server fresh from its start compiles every code path on first use; `warmUp`
    // one-fragment turns run them first, as a server that has been up a while has.
    if (warmUp) {
      await runScript(
        join(root, 'bench/latency-client.mjs'),
        { URL: url, TARGET: target, SESSIONS: String(warmUp), TEXT: 'warm-up', STAGGER_MS: '2000' },
        { cpu: 1 },
      );
    }
    const rssBefore = rssKb(server.pid);
    const ticksBefore = cpuTicks(server.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb(server.pid))), 500);
    const started = performance.now();
    const out = await runClients(url, target, sessions, fragments, staggerMs);
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const ticksAfter = cpuTicks(server.pid);
    const kernelTicks = ticksAfter.kernel - ticksBefore.kernel;
    const ticks = ticksAfter.user - ticksBefore.user + kernelTicks;
    // Does the same server, once the load is gone, serve a normal load normally?
    const after = recovery ? await runClients(url, target, recovery, fragments, staggerMs) : undefined;
    const writes = await readWrites(`http://127.0.0.1:${upstream.port}`);
    return {
      target,
      sessions,
      fragmentsPerSecond: Math.round(out.arrivals.length / elapsed),
      ...latencySummary(out, writes, fragments),
      delivered: out.arrivals.length,
      expected: sessions * fragments,
      cpuMsPerFragment: ((ticks / TICKS_PER_SECOND) * 1000) / Math.max(1, out.arrivals.length),
      cpuMsPerSession: ((ticks / TICKS_PER_SECOND) * 1000) / sessions,
      cpuShare: ticks / TICKS_PER_SECOND / elapsed,
      kernelShareOfCpu: kernelTicks / Math.max(1, ticks),
      memoryKbPerSession: Math.round((rssPeak - rssBefore) / sessions),
      ...(after ? { recovery: { sessions: recovery, ...latencySummary(after, writes, fragments) } } : {}),
    };
  } finally {
    server.kill('SIGKILL');
    upstream.child.kill('SIGKILL');
  }
}

const NUMERIC = [
  'fragmentsPerSecond',
  'p50',
  'p99',
  'max',
  'cpuMsPerFragment',
  'cpuShare',
  'memoryKbPerSession',
];

/** The median run of a step: every figure the median of the runs' (lost and exact: the worst run). */
function medianOf(runs) {
  const out = { ...runs[0], runs: runs.length, p99s: runs.map((r) => r.p99) };
  for (const key of NUMERIC) out[key] = median(runs.map((r) => r[key]));
  for (const phase of ['start', 'middle', 'end']) {
    out.p99ByPhase = { ...out.p99ByPhase, [phase]: median(runs.map((r) => r.p99ByPhase[phase])) };
  }
  out.delivered = Math.min(...runs.map((r) => r.delivered));
  out.finalExact = Math.min(...runs.map((r) => r.finalExact));
  return out;
}

/**
 * Steps the session count up through the Aalis server, the baseline relay and the AI SDK
 * peer: each count `repeats` times per target, targets alternating, each run on a fresh
 * server warmed up with `warmUp` one-fragment turns (a server that has been up a while).
 * A target steps on while the median p99 stays within the bound; one that misses the
 * first step gets one try at half of it, so that every target has a count to compare.
 * Then 1,000 sessions through Aalis as overload, followed on the same server by a
 * normal load: does it recover?
 */
export async function scaleBench({
  steps = [50, 100, 150, 200, 300],
  overload = 1000,
  seconds = 20,
  boundMs = 50,
  repeats = 3,
  warmUp = 100,
  targets = ['aalis', 'baseline', 'peer'],
} = {}) {
  const results = [];
  const largest = {};
  const run = async (target, sessions) => {
    const runs = [];
    for (let i = 0; i < repeats; i++) runs.push(await scaleStep(sessions, { seconds, target, warmUp }));
    const step = medianOf(runs);
    results.push(step);
    console.error(
      `scale: ${target}, ${sessions} sessions: p99 ${step.p99s.map((p) => p.toFixed(1)).join(' / ')} ms`,
    );
    return step.p99 <= boundMs;
  };
  const stepping = new Set(targets);
  for (const [index, sessions] of steps.entries()) {
    for (const target of targets.filter((t) => stepping.has(t))) {
      if (await run(target, sessions)) largest[target] = sessions;
      else {
        stepping.delete(target);
        if (index === 0 && (await run(target, sessions / 2))) largest[target] = sessions / 2;
      }
    }
    if (!stepping.size) break;
  }
  const overloaded = await scaleStep(overload, { seconds, warmUp, recovery: steps[0] });
  console.error(
    `scale: ${overload} sessions: p99 ${overloaded.p99.toFixed(1)} ms, then ${steps[0]}: ${overloaded.recovery.p99.toFixed(1)} ms`,
  );
  return { results, largest, overloaded, boundMs, repeats, warmUp, seconds };
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
