/**
 * Every model the built-in agent can run a turn with, in one list. A back-end is a folder
 * (`providers/<name>/`) holding all of its knowledge: its settings and their defaults,
 * request building, stream parsing into the shared `ProviderChunk`s, error mapping, and a
 * README; its `index.ts` exports its definition (core/definition.ts). Adding one touches
 * its folder and one line here.
 *
 * The order is the order of `AALIS_PROVIDER`'s values in messages and `--help`, and of the
 * choice without it: the first entry whose `selectedBy` variable is set is used, else
 * `DEFAULT_PROVIDER`.
 *
 * An agent that runs elsewhere (an AG-UI endpoint, an AI SDK chat route) is not listed
 * here: it runs its own tools and loop, so it is not a model the built-in agent drives
 * but a `TurnAgent` of its own, answering whole turns. Those live in `upstream/`, one
 * folder per protocol, listed in upstream/registry.ts.
 */
import { anthropic } from './anthropic/index.js';
import { deepseek } from './deepseek/index.js';
import { demo } from './demo/index.js';
import { ollama } from './ollama/index.js';
import { openaiResponses } from './openai-responses/index.js';
import { openai } from './openai/index.js';

export const PROVIDERS = [demo, openai, openaiResponses, anthropic, deepseek, ollama] as const;

export type ProviderName = (typeof PROVIDERS)[number]['name'];

/** The back-end when none is named and none is selected by a variable: needs nothing set. */
export const DEFAULT_PROVIDER: ProviderName = 'demo';
