// What sharing live sessions through Redis costs: the same load (benchmark 2's: sessions
// each streaming one tool call at 25 fragments a second) on one server in-process, then on
// the same server with AALIS_REDIS_URL set (every frame appended to a Redis Stream, one
// script call per session and tick, a snapshot at most every 250 ms, a lease renewed),
// runs alternating, medians reported with their ratio. The server's CPU per fragment is
// measured as benchmark 2 does (/proc, the server pinned to core 0); Redis's own CPU per
// fragment comes from its INFO (it shares core 1 with the upstream and the clients).
//
//   npm run build && node bench/cluster-cost.mjs [sessions=100] [repeats=3] [seconds=10]
//
// Needs redis-server (node scripts/ensure-services.mjs installs it).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, ms, root } from './lib.mjs';
import { scaleStep } from './scale.mjs';

const { Redis } = createRequire(`${root}server/package.json`)('ioredis');

const [sessions = '100', repeats = '3', seconds = '10'] = process.argv.slice(2);

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

const listens = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket.destroy() && true));
    socket.once('error', () => resolve(false));
  });

/** A throwaway redis-server on core 1 (with the harness), persistence off. */
async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'aalis-bench-redis-'));
  const child = spawn(
    'taskset',
    [
      '-c',
      '1',
      'redis-server',
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  // Connect once it listens: a client that failed goes on retrying by itself.
  for (let tries = 0; !(await listens(port)); tries++) {
    if (tries > 100) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const client = new Redis(`redis://127.0.0.1:${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    /** Redis's own CPU seconds so far (user and system, all its threads). */
    async cpuSeconds() {
      const info = await client.info('cpu');
      const value = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
      return value('used_cpu_user') + value('used_cpu_sys');
    },
    async stop() {
      client.disconnect();
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const redis = await startRedis();
const runs = { 'in-process': [], redis: [] };
try {
  for (let round = 0; round < Number(repeats); round++) {
    for (const name of round % 2 ? ['redis', 'in-process'] : ['in-process', 'redis']) {
      const before = await redis.cpuSeconds();
      const step = await scaleStep(Number(sessions), {
        seconds: Number(seconds),
        warmUp: 20,
        serverEnv:
          name === 'redis'
            ? { AALIS_REDIS_URL: redis.url, AALIS_AUTH_SECRET: 'a-bench-secret-of-at-least-32-bytes!!!' }
            : {},
      });
      const redisMs = ((await redis.cpuSeconds()) - before) * 1000;
      if (step.finalExact !== Number(sessions) || step.lost)
        throw new Error(`${name}: turns did not all end exactly`);
      runs[name].push({ ...step, redisMsPerFragment: redisMs / Math.max(1, step.delivered) });
      console.error(
        `${name}: server ${ms(step.cpuMsPerFragment, 4)} ms/fragment, redis ${ms(redisMs / step.delivered, 4)} ms/fragment, p99 ${ms(step.p99)} ms`,
      );
    }
  }
} finally {
  await redis.stop();
}

const medianOf = (name, figure) => median(runs[name].map((run) => run[figure]));
const figures = ['cpuMsPerFragment', 'redisMsPerFragment', 'p99'];
const table = Object.fromEntries(
  Object.keys(runs).map((name) => [name, Object.fromEntries(figures.map((f) => [f, medianOf(name, f)]))]),
);
const local = table['in-process'];
const shared = table.redis;
console.log(`${sessions} sessions, ${seconds} s, median of ${repeats} alternating runs`);
console.log(`in-process: server ${ms(local.cpuMsPerFragment, 4)} ms CPU/fragment, p99 ${ms(local.p99)} ms`);
console.log(
  `redis:      server ${ms(shared.cpuMsPerFragment, 4)} ms CPU/fragment (ratio ${ms(shared.cpuMsPerFragment / local.cpuMsPerFragment)}), ` +
    `redis ${ms(shared.redisMsPerFragment, 4)} ms/fragment, server + redis ratio ${ms((shared.cpuMsPerFragment + shared.redisMsPerFragment) / local.cpuMsPerFragment)}, p99 ${ms(shared.p99)} ms`,
);
