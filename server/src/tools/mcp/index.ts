/** Tools from MCP servers: configured by `mcpServers`, offered to the model beside the others. */
export { describeMcpServers, type DescribeMcpServersOptions, type McpServerDescription } from './describe.js';
export {
  McpToolSource,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CALL_MS,
  type McpServerStatus,
  type McpToolSourceOptions,
} from './mcp-tool-source.js';
export type { McpLogger } from './server-connection.js';
export type { RetryPolicy } from './retry-delay.js';
export type { ToolOrigin } from './tool-names.js';
export type { McpImage, McpToolOutput, McpToolResult } from './tool-result.js';
export {
  isStdioServer,
  type HttpMcpServerConfig,
  type McpServerConfig,
  type McpServersConfig,
  type StdioMcpServerConfig,
} from './config.js';
