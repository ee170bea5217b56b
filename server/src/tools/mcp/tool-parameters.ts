/**
 * An MCP tool's `inputSchema` as the model and the registry get it. Servers write JSON
 * Schema of any draft and tag it (`$schema`, `$id`); the registry's Ajv compiles
 * draft-07 and refuses a whole group over one schema it cannot compile, and some model
 * APIs refuse keys they do not expect. So the tags go, and a schema that still does not
 * compile leaves its tool out (logged), never the server's other tools.
 */
import { Ajv } from 'ajv';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolParameters } from '../define-tool.js';

// The registry's own settings: what compiles here compiles there.
const checker = new Ajv({ allErrors: true, strict: false });

export type ParametersCheck = { ok: true; parameters: ToolParameters } | { ok: false; problem: string };

export function toolParameters(tool: Tool): ParametersCheck {
  const { $schema: _draft, $id: _id, ...schema } = tool.inputSchema as Record<string, unknown>;
  const parameters = { ...schema, type: 'object' } as ToolParameters;
  try {
    checker.compile(parameters);
    return { ok: true, parameters };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  } finally {
    // Compiled only to see that it compiles: nothing kept for the life of the process.
    checker.removeSchema(parameters);
  }
}
