/** The built `aalis-server` command, started as a site owner starts it, for tests. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export const AALIS_SERVER_BIN = new URL('../bin/aalis-server.js', import.meta.url).pathname;

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT`, as its start line says. */
  base: string;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
}

/** Starts it with only `env` (and PATH); resolves once its start line names where it listens. */
export async function startCli(env: Record<string, string>, cwd?: string): Promise<RunningCli> {
  const child = spawn(process.execPath, [AALIS_SERVER_BIN], {
    env: { PATH: process.env.PATH!, ...env },
    ...(cwd ? { cwd } : {}),
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const listening = /aalis-server: listening on (http:\/\/[^\s]+)/;
  for (const started = Date.now(); !listening.test(out);) {
    if (Date.now() - started > 10_000 || child.exitCode !== null)
      throw new Error(`aalis-server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, base: listening.exec(out)![1]!, output: () => out };
}
