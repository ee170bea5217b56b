/**
 * A real, throwaway PostgreSQL 15 for tests: a fresh cluster in a temporary directory,
 * listening on a free loopback port (and a socket in that directory), gone after `stop()`.
 * Durability is switched off (fsync) since the data lives as long as the test file. Each
 * call starts its own server, so test files running in parallel never share one.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { onFreePort } from './processes.js';

const run = promisify(execFile);

export interface TestPostgres {
  /** A database created for the caller: postgres://postgres@127.0.0.1:PORT/aalis_test. */
  url: string;
  /** Creates another empty database on the same server and returns its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server at once (no shutdown checkpoint) and removes its directory. */
  stop(): Promise<void>;
  /**
   * Stops the server, keeping its data: an outage of the database, as its clients meet
   * it (their connections cut). A fast shutdown, not an immediate one: durability is off
   * here, so a crash would lose what was written.
   */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port, with its data. */
  resume(): Promise<void>;
}

/** Starts the server; about a second, most of it `initdb`. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'aalis-pg-'));
  const data = join(dir, 'data');
  handToServerUser(dir);
  let port: number | undefined;
  try {
    await runAsServerUser(join(bin, 'initdb'), [
      ...['-D', data, '-A', 'trust', '-U', 'postgres'],
      ...['-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
    ]);
    port = await startOnFreePort(bin, dir);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const stopNow = () => {
    // Synchronous, so that it also works from an 'exit' handler.
    try {
      execFileSync(...asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']), {
        stdio: 'ignore',
      });
    } catch {
      // Already stopped.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A test process that ends without calling stop() must not leave a server behind.
  process.once('exit', stopNow);

  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let databases = 0;
  const createDatabase = async () => {
    const name = `aalis_test_${++databases}`;
    const admin = new pg.Client({ connectionString: urlOf('postgres') });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    return urlOf(name);
  };
  let url: string;
  try {
    url = await createDatabase();
  } catch (error) {
    stopNow();
    throw error;
  }
  let stopped = false;
  return {
    url,
    createDatabase,
    halt: async () => {
      await runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    resume: async () => {
      await startOn(bin, dir, port!);
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', stopNow);
      stopNow();
    },
  };
}

/** The directory of `initdb` and `pg_ctl`: Debian's PostgreSQL 15, or what pg_config says. */
function postgresBinaries(): string {
  const candidates = ['/usr/lib/postgresql/15/bin'];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // No pg_config either.
  }
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (!found)
    throw new Error(
      `PostgreSQL is not installed: run "node scripts/ensure-services.mjs" (installs Debian's postgresql)`,
    );
  return found;
}

/**
 * PostgreSQL refuses to run as root: then its programs run as the `postgres` user (which
 * Debian's package creates), and the server's directory becomes that user's.
 */
const asRoot = process.getuid?.() === 0;

function handToServerUser(dir: string): void {
  if (asRoot) execFileSync('chown', ['postgres:', dir]);
}

/** The command line that runs `command` as the server's user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function runAsServerUser(command: string, args: string[]): Promise<unknown> {
  return run(...asServerUser(command, args));
}

/** Starts the server on a free port (onFreePort tries another one when it was taken). */
async function startOnFreePort(bin: string, dir: string): Promise<number> {
  const log = join(dir, 'server.log');
  try {
    return (await onFreePort((port) => startOn(bin, dir, port))).port;
  } catch (error) {
    const tail = existsSync(log) ? execFileSync('tail', ['-n', '5', log], { encoding: 'utf8' }) : '';
    throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${tail}`, { cause: error });
  }
}

/** Starts the server of `dir` on `port`; resolves once it accepts connections. */
async function startOn(bin: string, dir: string, port: number): Promise<void> {
  const settings = [
    `-p ${port}`,
    `-k '${dir}'`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c shared_buffers=16MB',
  ].join(' ');
  const server = ['-D', join(dir, 'data'), '-l', join(dir, 'server.log'), '-o', settings];
  await runAsServerUser(join(bin, 'pg_ctl'), [...server, '-w', '-t', '30', 'start']);
}
