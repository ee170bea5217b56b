// Shared pieces of the benchmarks: processes, ports, statistics.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** The `ws` the server uses (the root may hold an older one, for the test tools). */
export const ws = createRequire(`${root}server/package.json`)('ws');

// Services this process started die with it, whatever way it ends, and the data folders
// made for them go with them.
const children = new Set();
const dataDirs = new Set();
const track = (child) => {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
};
const removeDir = (dir) => {
  rmSync(dir, { recursive: true, force: true });
  dataDirs.delete(dir);
};
for (const signal of ['exit', 'SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dataDirs) removeDir(dir);
    if (signal !== 'exit') process.exit(1);
  });
}

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** The command line that runs `argv` with node, pinned to `cpu` when given (taskset). */
function nodeCommand(argv, cpu) {
  return cpu === undefined
    ? [process.execPath, argv]
    : ['taskset', ['-c', String(cpu), process.execPath, ...argv]];
}

/** Starts a script that reports `{ port }` over IPC once it listens. */
export function forkService(script, env, { cpu } = {}) {
  const [command, args] = nodeCommand([script], cpu);
  const child = track(
    spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** Runs a script to its end and returns what it printed. */
function runScript(script, env, { cpu } = {}) {
  const [command, args] = nodeCommand([script], cpu);
  const child = track(
    spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}`)),
    ),
  );
}

/** A tool Aalis has built in (the time); the peer declares one of the same name. */
export const BENCH_TOOL = 'get_time';

/**
 * One bench/latency-client.mjs process running `sessions` turns on `target` at `url`;
 * resolves with what it printed. `text` is what the user says (`warm-up` asks the fake
 * upstream for one fragment).
 */
export async function runClients({ url, target, sessions = 1, fragments, staggerMs, text, cpu }) {
  const env = { TARGET_URL: url, TARGET: target, SESSIONS: String(sessions) };
  if (fragments !== undefined) env.FRAGMENTS = String(fragments);
  if (staggerMs !== undefined) env.STAGGER_MS = String(staggerMs);
  if (text !== undefined) env.TEXT = text;
  return JSON.parse(await runScript(join(root, 'bench/latency-client.mjs'), env, { cpu }));
}

/**
 * Splits the complete events off an SSE buffer: their `data` fields, and what is left
 * for the next read.
 */
export function takeSseData(buffered) {
  const data = [];
  let end;
  while ((end = buffered.indexOf('\n\n')) >= 0) {
    const event = buffered.slice(0, end);
    buffered = buffered.slice(end + 2);
    if (event.startsWith('data: ')) data.push(event.slice(6));
  }
  return { data, rest: buffered };
}

/** Spawns a long-running process that dies with this one. */
function spawnService(command, args, env) {
  return track(spawn(command, args, { env: { ...process.env, ...env }, stdio: 'ignore' }));
}

/**
 * Where the benchmarks' Aalis server keeps its history: `durable` (the default, what users
 * run: SQLite in a data folder, a fresh temporary one per server, removed when it exits)
 * or `memory` (AALIS_DATA_DIR=:memory:, the benchmarks' setting before issue 29).
 * BENCH_HISTORY=memory makes memory the default of a whole run.
 */
export const HISTORIES = ['durable', 'memory'];
export const defaultHistory = () => {
  const history = process.env.BENCH_HISTORY ?? 'durable';
  if (!HISTORIES.includes(history))
    throw new Error(`BENCH_HISTORY=${history}: use one of ${HISTORIES.join(', ')}`);
  return history;
};

/**
 * The Aalis server as `aalis-server` runs it (or the build in `dist`), on a model at
 * `upstreamUrl`, its history `history` (see HISTORIES); pinned to `cpu` when given, with
 * `nodeArgs` (say, `--cpu-prof`) for node and `env` over its environment (say,
 * `AALIS_REDIS_URL`). Resolves once it answers /healthz.
 */
export async function startAalis(
  upstreamUrl,
  { cpu, dist = process.env.BENCH_SERVER_DIST, nodeArgs = [], env = {}, history = defaultHistory() } = {},
) {
  const port = await freePort();
  // BENCH_SERVER_DIST runs another build (say, a copy of server/dist from before a
  // change) for an A/B comparison in one run.
  const cli = [
    ...nodeArgs,
    ...(dist
      ? [join(root, 'bench/run-build.mjs'), join(root, dist)]
      : [join(root, 'server/bin/aalis-server.js')]),
  ];
  const [command, args] = nodeCommand(cli, cpu);
  // A fresh data folder per server: no history from an earlier run to open or grow.
  const dataDir =
    history === 'durable' && env.AALIS_DATA_DIR === undefined
      ? mkdtempSync(join(tmpdir(), 'aalis-bench-data-'))
      : undefined;
  if (dataDir) dataDirs.add(dataDir);
  const child = spawnService(command, args, {
    PORT: String(port),
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: `${upstreamUrl}/v1`,
    LOG_LEVEL: 'silent',
    AALIS_DATA_DIR: dataDir ?? ':memory:',
    // Every bench client comes from loopback: per-IP limits would cap the load itself.
    AALIS_IP_MAX_CONNECTIONS: '0',
    AALIS_IP_CONNECTIONS_PER_MINUTE: '0',
    AALIS_IP_SENDS_PER_MINUTE: '0',
    ...env,
  });
  if (dataDir) child.once('exit', () => removeDir(dataDir));
  await waitForHttp(`http://127.0.0.1:${port}/healthz`);
  return { child, port, history, dataDir };
}

async function waitForHttp(url, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not up yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at];
}

/** The median of the finite values (the lower middle one of an even count); NaN when none. */
export const median = (values) =>
  percentile(
    values.filter(Number.isFinite).sort((a, b) => a - b),
    50,
  );

export const ms = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** One key per (stream, fragment): streams and fragments stay far below a million. */
const fragmentKey = (stream, fragment) => stream * 1e6 + fragment;

/**
 * The upstream's write log: fragment key -> ns on the monotonic clock, as a Number (exact
 * below 2^53 ns, over a hundred days of uptime).
 */
export async function readWrites(upstreamUrl) {
  const writes = new Map();
  const text = await (await fetch(`${upstreamUrl}/writes`)).text();
  for (const line of text.trim().split('\n')) {
    const [stream, fragment, ns] = line.split(' ');
    writes.set(fragmentKey(Number(stream), Number(fragment)), Number(ns));
  }
  return writes;
}

/**
 * Matches a client's arrivals (flat: stream, fragment, ns, stream, fragment, ns, ...)
 * with the upstream's writes. Returns the sorted milliseconds from write to arrival, one
 * per fragment (the first arrival counts), and what did not match: arrivals of no
 * written fragment, and fragments that arrived twice. `keep(fragment)` picks a subset.
 */
export function matchArrivals(arrivals, writes, keep = () => true) {
  const seen = new Set();
  const latencies = [];
  let unmatched = 0;
  let duplicates = 0;
  for (let i = 0; i < arrivals.length; i += 3) {
    const [stream, fragment, ns] = [arrivals[i], arrivals[i + 1], arrivals[i + 2]];
    if (!keep(fragment)) continue;
    const key = fragmentKey(stream, fragment);
    const written = writes.get(key);
    if (written === undefined) unmatched++;
    else if (seen.has(key)) duplicates++;
    else {
      seen.add(key);
      latencies.push((ns - written) / 1e6);
    }
  }
  latencies.sort((a, b) => a - b);
  return { latencies, unmatched, duplicates };
}
