/**
 * AG-UI (https://docs.ag-ui.com): an agent behind an AG-UI HTTP endpoint (LangGraph,
 * CrewAI, Mastra, Pydantic AI, Agno, the ADK, ...) answers our turns. README.md says how
 * its events become frames.
 */
import { defineUpstreamProtocol } from '../core/protocol.js';
import { runAgentInput } from './run-input.js';
import { AgUiRunReader } from './run-events.js';

export const agUi = defineUpstreamProtocol({
  name: 'ag-ui',
  body: runAgentInput,
  reader: () => new AgUiRunReader(),
});
