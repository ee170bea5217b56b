/**
 * What `aalis-server --check` prints of each MCP server: the tools it offers, under the
 * names the model will see, or why it could not be reached. Every server is opened in
 * parallel, asked for its tools, and closed again.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServersConfig } from './config.js';
import { openMcpClient } from './open-client.js';
import { selectTools } from './select-tools.js';
import { offeredToolNames } from './tool-names.js';

export interface McpServerDescription {
  server: string;
  /** Its tools as offered to the model (the allow-list applied), when it answered. */
  tools?: Array<{
    /** The name the model sees. */
    name: string;
    description?: string;
    /** The server's own name for it, when the model sees another. */
    originalName?: string;
  }>;
  /** Why it could not be reached, when it could not (a process's exit code or signal in it). */
  error?: string;
  /** The last lines a stdio server that failed wrote to its stderr, oldest first (bounded). */
  stderr?: string[];
}

export interface DescribeMcpServersOptions {
  /** For each server: start, handshake and list of tools (10 s makes a good default). */
  timeoutMs: number;
  /**
   * The other tools the model is offered (the built-in ones): an MCP tool with one of
   * their names is offered under its server's prefix, as it will be when serving.
   */
  reservedNames?: readonly string[];
}

/** One server's tools as it listed them, or why it could not. */
interface Outcome {
  server: string;
  tools?: Tool[];
  error?: string;
  stderr?: string[];
}

export async function describeMcpServers(
  servers: McpServersConfig,
  options: DescribeMcpServersOptions,
): Promise<McpServerDescription[]> {
  const outcomes = await Promise.all(
    Object.entries(servers).map(async ([server, config]): Promise<Outcome> => {
      try {
        const session = await openMcpClient(config, { timeoutMs: options.timeoutMs });
        await session.close();
        return { server, tools: selectTools(session.tools, config.tools).tools };
      } catch (error) {
        const { message, stderr = [] } = error as { message: string; stderr?: string[] };
        return { server, error: message, ...(stderr.length ? { stderr } : {}) };
      }
    }),
  );

  const named = offeredToolNames(
    outcomes.flatMap(({ server, tools = [] }) => tools.map((tool) => ({ server, tool: tool.name }))),
    new Set(options.reservedNames ?? []),
  );
  let next = 0;
  return outcomes.map(({ server, tools, error, stderr }) => {
    if (!tools) return { server, error: error ?? 'unknown error', ...(stderr ? { stderr } : {}) };
    return {
      server,
      tools: tools.map((tool) => {
        const { offered } = named[next++]!;
        return {
          name: offered,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          ...(offered === tool.name ? {} : { originalName: tool.name }),
        };
      }),
    };
  });
}
