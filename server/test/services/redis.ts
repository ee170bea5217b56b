/**
 * A real Redis for tests: Debian's `redis-server` on a free loopback port, in a throwaway
 * directory, with persistence off (`--save ''`, no AOF), so every start is empty and a
 * test leaves nothing behind. `restart()` brings it back on the same port, as an outage
 * of the shared Redis would look to the instances; `kill()` is the crash without a
 * goodbye.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { onFreePort, stopOnExit, stopProcess } from './processes.js';

export interface RedisService {
  /** `redis://127.0.0.1:<port>`, for `new Redis(url)`. */
  url: string;
  port: number;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
  /** Stops it (killed already is fine) and starts it again, empty, on the same port. */
  restart(): Promise<void>;
  /** SIGKILL: gone at once, as in a crash; `restart()` still brings it back. */
  kill(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 10_000;

export async function startRedis(): Promise<RedisService> {
  const binary = findRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'aalis-redis-'));
  const { port, started } = await onFreePort((port) => launch(binary, dir, port)).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  let running: ChildProcess | undefined = started;

  const halt = async (signal: NodeJS.Signals) => {
    const server = running;
    running = undefined;
    if (server) await stopProcess(server, signal);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    restart: async () => {
      await halt('SIGTERM');
      running = await launch(binary, dir, port);
    },
    kill: () => halt('SIGKILL'),
  };
}

function findRedisServer(): string {
  const candidates = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'redis-server'));
  const found = [...candidates, '/usr/bin/redis-server'].find((path) => existsSync(path));
  if (!found) throw new Error('redis-server is not installed: run "node scripts/ensure-services.mjs"');
  return found;
}

/** Starts redis-server on `port` and resolves once it answers PING; rejects if it exits first. */
async function launch(binary: string, dir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  stopOnExit(child, 'SIGKILL');

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`redis-server exited before answering on port ${port}:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stopProcess(child, 'SIGKILL');
      throw new Error(
        `redis-server did not answer PING on port ${port} within ${STARTUP_TIMEOUT_MS} ms:\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Its log is not read after start-up; it must not fill a pipe and stall the server.
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

/** True when something on `port` answers PING with +PONG. Raw RESP: no client to configure. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}
