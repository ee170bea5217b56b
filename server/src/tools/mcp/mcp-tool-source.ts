/**
 * The tools of every configured MCP server, kept in a ToolRegistry beside the others:
 * each server's tools are one group of the registry, named after the server, and come
 * and go together as it connects, stops or changes its list. The agent reads the registry
 * at every model round, so a change reaches the next round.
 *
 *   const mcp = new McpToolSource({ servers, registry, logger }); // connecting starts
 *   await mcp.ready;  // optional: every server connected or failed once
 *   await mcp.close(); // at shutdown: sessions closed, processes stopped, retries stopped
 *
 * Servers connect in parallel and never hold the rest of the server up: a server that is
 * slow or fails only lacks its tools until it is there (retried with backoff).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition, ToolRegistry } from '../define-tool.js';
import type { McpServersConfig } from './config.js';
import { mcpToolDefinition } from './mcp-tool.js';
import type { RetryPolicy } from './retry-delay.js';
import { McpApps } from './mcp-apps.js';
import { McpServerConnection, type McpLogger } from './server-connection.js';
import { isAppOnly } from './tool-app.js';
import { toolParameters, type ParametersCheck } from './tool-parameters.js';
import { offeredToolNames, type ToolOrigin } from './tool-names.js';

export interface McpToolSourceOptions {
  servers: McpServersConfig;
  /** Where the tools go; the registry's other tools keep their names. */
  registry: ToolRegistry;
  /** pino, console or alike: connections and failures at info and warn, stderr at debug. */
  logger: McpLogger;
  /** Per attempt: start, handshake and list of tools (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * A call that sends neither its result nor progress for this long is cancelled
   * (default 60 s); each progress report starts it again.
   */
  callTimeoutMs?: number;
  /** The most a call may take, progress or not (default 10 minutes). */
  maxCallMs?: number;
  /** Waits between attempts to reach a server that failed (1 s doubling to 60 s). */
  retry?: RetryPolicy;
}

export interface McpServerStatus {
  server: string;
  connected: boolean;
  /** The names its tools are offered under now. */
  tools: string[];
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CALL_MS = 10 * 60_000;

export class McpToolSource {
  /** Settles (never rejects) when every server has connected or failed once. */
  readonly ready: Promise<void>;
  readonly #registry: ToolRegistry;
  readonly #logger: McpLogger;
  readonly #connections: McpServerConnection[];
  readonly #times: { callTimeoutMs: number; maxCallMs: number };
  /** Offered name to where the tool lives. */
  #offered = new Map<string, ToolOrigin>();
  /** Each listed tool's schema, checked once per listing. */
  readonly #parameters = new WeakMap<Tool, ParametersCheck>();
  #closed = false;

  constructor(options: McpToolSourceOptions) {
    this.#registry = options.registry;
    this.#logger = options.logger;
    this.#times = {
      callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      maxCallMs: options.maxCallMs ?? DEFAULT_MAX_CALL_MS,
    };
    this.#connections = Object.entries(options.servers).map(
      ([name, config]) =>
        new McpServerConnection(name, config, {
          logger: options.logger,
          connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
          retry: options.retry ?? {},
          onToolsChanged: () => this.#publish(),
        }),
    );
    this.ready = Promise.all(this.#connections.map((connection) => connection.start())).then(() => {});
  }

  /**
   * The servers' MCP Apps: their pages and the calls they make, under the site's approval
   * rules (`needsApproval`, by the name a tool is offered under).
   */
  apps(needsApproval: (offeredName: string) => boolean): McpApps {
    return new McpApps({
      connection: (serverName) => this.#connections.find((c) => c.name === serverName),
      offeredName: (serverName, toolName) =>
        [...this.#offered].find(
          ([, origin]) => origin.server === serverName && origin.tool === toolName,
        )?.[0],
      needsApproval,
      callTimeoutMs: this.#times.callTimeoutMs,
    });
  }

  /** Which server and which of its tools the model means by `offeredName`. */
  originOf(offeredName: string): ToolOrigin | undefined {
    return this.#offered.get(offeredName);
  }

  status(): McpServerStatus[] {
    return this.#connections.map(({ name, connected }) => ({
      server: name,
      connected,
      tools: [...this.#offered].filter(([, origin]) => origin.server === name).map(([offered]) => offered),
    }));
  }

  /** Closes every session, stops stdio servers' processes and retries; the tools go. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#connections.map((connection) => connection.close()));
    for (const connection of this.#connections) this.#registry.replaceGroup(connection.name, []);
    this.#offered = new Map();
  }

  /** Names every server's tools anew (a collision may have come or gone) and registers them. */
  #publish(): void {
    if (this.#closed) return;
    const ours = new Set(this.#offered.keys());
    const reserved = new Set(this.#registry.names.filter((name) => !ours.has(name)));
    const usable = this.#connections.map((connection) => ({
      connection,
      // A tool only its app may call is never offered to the model (MCP Apps' visibility).
      tools: connection.tools.flatMap((tool) => {
        if (isAppOnly(tool)) return [];
        const check = this.#checkParameters(connection.name, tool);
        return check.ok ? [{ tool, parameters: check.parameters }] : [];
      }),
    }));
    const named = offeredToolNames(
      usable.flatMap(({ connection, tools }) =>
        tools.map(({ tool }) => ({ server: connection.name, tool: tool.name })),
      ),
      reserved,
    );

    let next = 0;
    const groups = usable.map(({ connection, tools }) => ({
      group: connection.name,
      definitions: tools.map(({ tool, parameters }): ToolDefinition => {
        const { offered } = named[next++]!;
        return mcpToolDefinition(offered, tool, parameters, connection, this.#times);
      }),
    }));
    // Emptied first, then filled, so that a name passing from one server to another (a
    // collision resolved) is never refused as taken. No await in between: the agent never
    // sees the gap.
    for (const { group } of groups) this.#registry.replaceGroup(group, []);
    for (const { group, definitions } of groups) {
      try {
        this.#registry.replaceGroup(group, definitions);
      } catch (error) {
        this.#logger.error({ mcpServer: group, err: error }, 'MCP server: its tools could not be registered');
      }
    }
    this.#offered = new Map(named.map(({ offered, server, tool }) => [offered, { server, tool }]));
  }

  #checkParameters(server: string, tool: Tool): ParametersCheck {
    let check = this.#parameters.get(tool);
    if (!check) {
      check = toolParameters(tool);
      this.#parameters.set(tool, check);
      if (!check.ok)
        this.#logger.warn(
          { mcpServer: server, tool: tool.name, reason: check.problem },
          'MCP tool left out: its input schema does not compile',
        );
    }
    return check;
  }
}
