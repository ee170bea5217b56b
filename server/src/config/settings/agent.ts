/**
 * The `agent` block: an agent running elsewhere answers the turns instead of a model
 * (upstream/): which protocol it speaks, where it is, and the headers it wants.
 */
import { UPSTREAM_PROTOCOL_NAMES } from '../../upstream/registry.js';
import { variable, type Block, type Setting } from './setting.js';

export const AGENT_BLOCK: Block = {
  key: 'agent',
  description:
    'An agent that answers instead of a model (LangGraph, Mastra, CrewAI, Pydantic AI behind AG-UI; an AI SDK chat route): the server posts each turn to it and shows its text, reasoning and tool calls as it streams them. It runs its own tools and prompt. Needs protocol and url.',
};

export const AGENT_SETTINGS: Setting[] = [
  {
    key: 'agent.protocol',
    variables: [
      variable(
        'AALIS_AGENT_PROTOCOL',
        `${UPSTREAM_PROTOCOL_NAMES.join(' | ')}: an agent at AALIS_AGENT_URL answers instead of a model`,
      ),
    ],
    schema: { enum: [...UPSTREAM_PROTOCOL_NAMES] },
    description:
      "ag-ui: an AG-UI endpoint (RunAgentInput in, its events out); ai-sdk: an AI SDK chat route (useChat's request in, a UI message stream out).",
    fallback: 'none (a model answers)',
  },
  {
    key: 'agent.url',
    variables: [
      variable('AALIS_AGENT_URL', "the agent's endpoint (http:// or https://) each turn is posted to"),
    ],
    schema: { type: 'string', minLength: 1 },
    description: "the agent's endpoint, http:// or https://: each turn is one POST to it.",
    mask: 'url',
  },
  {
    key: 'agent.headers',
    variables: [],
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    description:
      'Sent with every request to the agent (Authorization: "Bearer ${AGENT_TOKEN}"); values that look secret are masked by --check.',
  },
];
