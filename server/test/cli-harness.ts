/** The built `aalis-server` command, started as a site owner starts it, for tests. */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';

export const AALIS_SERVER_BIN = new URL('../bin/aalis-server.js', import.meta.url).pathname;

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT`, as its start line says. */
  base: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves once what it printed matches `pattern` (a line a test expects it to log). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/**
 * Collects a child's stdout and stderr, and waits for what it prints: each chunk is
 * looked at as it arrives, no polling. A wait fails at once when the child has ended.
 */
export function watchOutput(child: ChildProcess): Pick<RunningCli, 'output' | 'waitForOutput'> {
  let out = '';
  const listeners = new Set<() => void>();
  const heard = (d: Buffer) => {
    out += d;
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', heard);
  child.stderr!.on('data', heard);
  // 'close', not 'exit': by then everything it printed has been read.
  let closed = false;
  child.once('close', () => {
    closed = true;
    for (const listener of listeners) listener();
  });
  return {
    output: () => out,
    waitForOutput: (pattern, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`did not print ${pattern} in ${timeoutMs} ms: ${out}`));
        }, timeoutMs);
        function check() {
          const match = pattern.exec(out);
          if (match) {
            done();
            resolve(match);
          } else if (closed) {
            done();
            reject(
              new Error(
                `exited (${child.exitCode ?? child.signalCode}) before it printed ${pattern}: ${out}`,
              ),
            );
          }
        }
        listeners.add(check);
        check();
      }),
  };
}

/** Starts it with only `env` (and PATH) and `args`; resolves once its start line names where it listens. */
export async function startCli(
  env: Record<string, string>,
  cwd?: string,
  args: readonly string[] = [],
): Promise<RunningCli> {
  const child = spawn(process.execPath, [AALIS_SERVER_BIN, ...args], {
    env: { PATH: process.env.PATH!, ...env },
    ...(cwd ? { cwd } : {}),
  });
  const watched = watchOutput(child);
  try {
    // A start takes about a second alone; on a loaded machine (npm test runs its steps
    // beside each other) it has taken over 10 s.
    const started = await watched.waitForOutput(/aalis-server: listening on (http:\/\/[^\s]+)/, 30_000);
    return { child, base: started[1]!, ...watched };
  } catch (error) {
    // A start that failed or never said where it listens must not outlive the test.
    child.kill('SIGKILL');
    throw error;
  }
}
