// Types for ai-sdk-route.mjs; the shapes are agent.mjs's (a run's runId is the chat's id).
import type { ExampleAgentOptions, RunningExample } from './agent.mjs';

export type { ExampleRun, RunningExample } from './agent.mjs';

export function startRoute(options?: ExampleAgentOptions): Promise<RunningExample>;
