/**
 * How a site owner names the MCP servers whose tools the model is offered: the
 * `mcpServers` block of the configuration file, in the shape the common desktop and
 * editor agents use, so an owner can paste theirs.
 */

/** A server the Aalis server starts itself and talks to over its stdin and stdout. */
export interface StdioMcpServerConfig {
  command: string;
  args?: string[];
  /**
   * Its whole environment besides a minimal safe set (PATH, HOME, ...): it never inherits
   * the Aalis server's own, which holds API keys.
   */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * The user it runs as (a name or a uid), when not the server's own: such a child can
   * read neither the server's environment and memory nor its files (run-as.ts). Needs
   * the server to run as root.
   */
  user?: string;
  /** With `user`: the group it runs as (a name or a gid); the user's own by default. */
  group?: string;
  /** Offer only these of its tools (by the server's own names); all of them by default. */
  tools?: string[];
}

/** A server reached over Streamable HTTP. */
export interface HttpMcpServerConfig {
  url: string;
  headers?: Record<string, string>;
  tools?: string[];
}

export type McpServerConfig = StdioMcpServerConfig | HttpMcpServerConfig;

/** By the server's name, which prefixes its tools' names when two servers' tools collide. */
export type McpServersConfig = Record<string, McpServerConfig>;

export const isStdioServer = (config: McpServerConfig): config is StdioMcpServerConfig => 'command' in config;
