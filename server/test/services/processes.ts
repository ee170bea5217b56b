/**
 * What every test service launcher (redis.ts, postgres.ts, nginx.ts) and harness needs of
 * a child process: a free loopback port to give it, a stop that waits for the exit, and a
 * last net that stops the ones a failed test never stopped.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A loopback port nothing listened on a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts something on a port that was free a moment ago. Another process may take it in
 * between (test files start services in parallel): then `start` throws, and it is tried
 * again on another port, three times in all.
 */
export async function onFreePort<T>(
  start: (port: number) => Promise<T>,
): Promise<{ port: number; started: T }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, started: await start(port) };
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** Sends `signal` and waits for the exit; a process that ignores it for 5 s is killed. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exit;
  clearTimeout(timer);
}

/** Children still running when the test process exits, with the signal each is stopped by. */
const liveChildren = new Map<ChildProcess, NodeJS.Signals>();
process.once('exit', () => {
  for (const [child, signal] of liveChildren) child.kill(signal);
});

/** Stops `child` with `signal` when the test process exits before it did (a test that failed before its stop). */
export function stopOnExit(child: ChildProcess, signal: NodeJS.Signals): void {
  liveChildren.set(child, signal);
  child.once('exit', () => liveChildren.delete(child));
}
