/**
 * Every back-end the server can run a turn with, in one list. A back-end is a folder
 * (`providers/<name>/`) holding all of its knowledge: its settings and their defaults,
 * request building, stream parsing into the shared `ProviderChunk`s, error mapping, and a
 * README; its `index.ts` exports its definition (core/definition.ts). Adding one touches
 * its folder and one line here.
 *
 * The order is the order of `AALIS_PROVIDER`'s values in messages and `--help`, and of the
 * choice without it: the first entry whose `selectedBy` variable is set is used, else
 * `DEFAULT_PROVIDER`.
 *
 * A back-end that is not a model registers the same way. An upstream AG-UI agent, say,
 * would be a folder `providers/ag-ui/` whose `index.ts` exports
 *
 *     defineProvider({
 *       name: 'ag-ui',
 *       defaultModel: 'the agent's name, sent with the run',
 *       selectedBy: 'AALIS_AGUI_URL',
 *       settings: [{ variable: 'AALIS_AGUI_URL', fallback: '', meaning: 'the agent's endpoint', role: 'url' }],
 *       create: ({ required, patience }) => ({ provider: new AgUiAgent(required('AALIS_AGUI_URL'), patience) }),
 *     })
 *
 * where `AgUiAgent` is a `ChatProvider` whose `chatStream` posts the conversation to the
 * agent and maps its events to chunks (`TEXT_MESSAGE_CONTENT` to `contentDelta`,
 * `TOOL_CALL_START` and `TOOL_CALL_ARGS` to `toolCallProgress` through the round's
 * `ToolCallAccumulator`, `RUN_FINISHED` to `done`), with `streamRound` giving it the
 * retries, deadlines and silence notices every back-end has; and one line below.
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
