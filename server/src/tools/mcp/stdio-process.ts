/**
 * A stdio MCP server's process, started by the SDK's transport, with what that transport
 * does not say: how the process ended (its exit code, or the signal that ended it) and
 * when all it wrote to stderr has been read. A server that fails at start is then said
 * with its own words and its exit code, not with "connection closed".
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StderrTail } from './stderr-tail.js';

/** How the process ended: `code` when it exited, `signal` when a signal ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** After the process ends, how long what it wrote last may take to be read. */
const STDERR_READ_MS = 1_000;

export class WatchedStdioTransport extends StdioClientTransport {
  #exit: ProcessExit | undefined;
  #started = false;

  /** Its stderr is piped, never inherited (it would mix into ours unlabelled), into `tail`. */
  constructor(parameters: Omit<StdioServerParameters, 'stderr'>, tail: StderrTail) {
    super({ ...parameters, stderr: 'pipe' });
    // Attached before the start: the first lines are often the reason it fails.
    this.stderr?.on('data', (chunk: Buffer) => tail.write(chunk));
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  override async start(): Promise<void> {
    await super.start();
    this.#started = true;
    // The SDK keeps its child process to itself and drops the exit code when it closes.
    // Without the child (another SDK version), an exit is said without its code.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => (this.#exit = { code, signal }));
  }

  /** Settles once the process's stderr has ended and all of it was read (or after 1 s). */
  async stderrRead(): Promise<void> {
    // With stderr 'pipe', the SDK's stream is a PassThrough it makes before the start.
    const stream = this.stderr as Readable | null;
    if (!this.#started || !stream) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      finished(stream).catch(() => {}),
      new Promise((resolve) => (timer = setTimeout(resolve, STDERR_READ_MS))),
    ]);
    clearTimeout(timer);
  }
}

/** `exited with code 3`, `was ended by SIGKILL`. */
export function exitText(exit: ProcessExit | undefined): string {
  if (exit?.code !== null && exit?.code !== undefined) return `exited with code ${exit.code}`;
  return exit?.signal ? `was ended by ${exit.signal}` : 'exited';
}
