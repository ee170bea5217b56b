/**
 * One MCP tool as the registry holds it: offered under its own name or a prefixed one
 * (tool-names.ts), with the server's JSON Schema, and run on the server under its own
 * name, whatever the model calls it.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition, ToolParameters } from '../define-tool.js';
import type { McpServerConnection } from './server-connection.js';
import { appResourceUri } from './tool-app.js';
import { toolResultOf } from './tool-result.js';

export interface McpToolTimes {
  /** Silence (neither a result nor progress) after which a call is cancelled. */
  callTimeoutMs: number;
  /** The most a call may take, progress or not: the agent's limit for the tool. */
  maxCallMs: number;
}

export function mcpToolDefinition(
  offeredName: string,
  tool: Tool,
  parameters: ToolParameters,
  connection: McpServerConnection,
  times: McpToolTimes,
): ToolDefinition {
  const resourceUri = appResourceUri(tool);
  return {
    name: offeredName,
    ...(resourceUri ? { app: { serverName: connection.name, resourceUri } } : {}),
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    parameters,
    // The agent stops every tool at its `timeoutMs`, progress or not; the silence limit,
    // which progress resets, is the SDK's (callTimeoutMs) and comes first for a tool that
    // hangs.
    timeoutMs: times.maxCallMs,
    execute: async (args, context) => {
      // The registry checked `args` against the schema, whose type is `object`.
      const result = await connection.callTool(
        tool.name,
        args as Record<string, unknown>,
        context,
        times.callTimeoutMs,
      );
      return toolResultOf(result);
    },
  };
}
