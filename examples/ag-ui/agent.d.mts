// Types for agent.mjs, so that TypeScript tests (these examples' own, the server's) import it checked.
import type { EventEmitter } from 'node:events';

export interface ExampleRun {
  runId: string;
  outcome: 'finished' | 'stopped';
  sentFragments: number;
  totalFragments: number;
}

export interface ExampleAgentOptions {
  port?: number;
  host?: string;
  /** The wait in ms after each argument fragment (0 in tests); default 40. */
  pace?: number;
  /** How many pieces the tool call's arguments are written in; default 60. */
  fragments?: number;
}

export interface RunningExample {
  url: string;
  /** Emits `end` with an {@link ExampleRun} once per run. */
  runs: EventEmitter<{ end: [ExampleRun] }>;
  close(): Promise<void>;
}

export function startAgent(options?: ExampleAgentOptions): Promise<RunningExample>;
