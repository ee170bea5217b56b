/** @aalis/server: the protocol server, its providers, agent, tools and history stores. */
export { aalisChat, type AalisChatOptions } from './adapters/fastify-plugin.js';
export { attachAalisChat, type AttachAalisChatOptions, type AttachedAalisChat } from './adapters/use-ws.js';
export {
  createChatServer,
  type ChatServer,
  type ChatServerOptions,
  type ChatSocket,
  type SocketHandlers,
} from './transport/chat-server.js';
/** The one logger shape, Fastify's; `ChatServerLogger` is its former name. */
export type { Logger, Logger as ChatServerLogger } from './util/logger.js';
export {
  createChatEvents,
  type AdmissionRefusal,
  type ChatEventMap,
  type ChatEvents,
} from './transport/chat-events.js';
export { createChatServices, type ChatServices, type ChatServicesOptions } from './compose/chat-services.js';
export type { ConnectionOptions } from './transport/client-connection.js';
export { createAalisServer, type AalisServer } from './app.js';
export { loadConfig, loadServerConfig, ConfigError, type ServerConfig } from './config/server-config.js';
export { describeHosts } from './transport/host-guard.js';
export { pagePolicy, setPageHeaders } from './transport/chat-page.js';
export { challengeOrigins, type ChallengeConfig } from './identity/challenge-config.js';
export {
  FilePauseSwitch,
  MemoryPauseSwitch,
  RedisPauseSwitch,
  type PauseState,
  type PauseSwitch,
} from './budgets/pause-switch.js';
export {
  IpLimits,
  DEFAULT_IP_LIMITS,
  type IpLimitOptions,
  type IpLimitSettings,
  type IpRefusal,
} from './transport/ip-limits.js';
export { createClientIp, type ClientIpOf } from './transport/client-ip.js';
export {
  createTokenVerifier,
  createVisitorAuth,
  VISITOR_REFUSED_REASON,
  type AuthConfig,
  type AuthMode,
  type TokenVerifier,
  type Visitor,
  type VisitorAuth,
} from './identity/index.js';
export { listenProblem } from './config/startup-problems.js';
export { loadAuthConfig, loadBudgetConfig } from './config/load-access.js';
export {
  Budgets,
  DEFAULT_BUDGETS,
  MemoryBudgetStore,
  SqliteBudgetStore,
  type BudgetLimitName,
  type BudgetLimits,
  type BudgetRefusal,
  type BudgetStore,
  type BudgetsOptions,
} from './budgets/index.js';
export { SessionHub, type Peer, type TurnSummary } from './sessions/session-hub.js';
export { ServerMetrics, UNKNOWN_TOOL, type ServerMetricsOptions } from './observability/metrics.js';
export { TRACER_NAME, SpanName, Attr as SpanAttribute } from './agent/tracing.js';
export { Agent, type AgentOptions } from './agent/agent.js';
export type { AgentEvents, ToolExecuteEvent, TurnAgent, TurnInput, TurnResult } from './agent/turn-agent.js';
export { UpstreamAgent, type UpstreamAgentOptions } from './upstream/core/upstream-agent.js';
export {
  UPSTREAM_PROTOCOLS,
  createUpstreamAgent,
  type UpstreamAgentSettings,
  type UpstreamProtocolName,
} from './upstream/registry.js';
export type {
  ChatProvider,
  ChatRequest,
  ModelMessage,
  ProviderChunk,
  RoundReplay,
  ToolSpec,
} from './providers/core/types.js';
export { ProviderError, type ProviderErrorKind } from './providers/core/errors.js';
export {
  defineProvider,
  type ProviderDefinition,
  type ProviderSettings,
  type SettingDescription,
} from './providers/core/definition.js';
export { OpenAIProvider, type OpenAIProviderOptions } from './providers/openai/index.js';
export {
  OpenAIResponsesProvider,
  type OpenAIResponsesProviderOptions,
} from './providers/openai-responses/index.js';
export {
  AnthropicProvider,
  type AnthropicProviderOptions,
  type AnthropicThinking,
} from './providers/anthropic/index.js';
export { createDeepSeekProvider } from './providers/deepseek/index.js';
export { OllamaProvider, type OllamaProviderOptions } from './providers/ollama/index.js';
export { DemoProvider } from './providers/demo/index.js';
export { providerFromEnv } from './providers/from-env.js';
export {
  defineTool,
  ToolError,
  ToolRegistry,
  type ToolDefinition,
  type ToolContext,
  type ToolParameters,
} from './tools/define-tool.js';
export { builtinTools } from './tools/builtin/index.js';
export {
  McpToolSource,
  describeMcpServers,
  type DescribeMcpServersOptions,
  type McpServerDescription,
  type McpServerStatus,
  type McpToolSourceOptions,
  type McpToolOutput,
  type McpImage,
  type McpServersConfig,
  type McpServerConfig,
  type StdioMcpServerConfig,
  type HttpMcpServerConfig,
} from './tools/mcp/index.js';
export type { HistoryStore, HistoryPage } from './history/store.js';
export { MemoryHistoryStore } from './history/memory-store.js';
export { SqliteHistoryStore } from './history/sqlite-store.js';
export { PostgresHistoryStore } from './history/postgres-store.js';
export { archiveOf } from './history/archive-of.js';
export type {
  ArchivedConversation,
  ArchivedMessage,
  ConversationArchive,
  ConversationListing,
  ConversationQuery,
  HandoffStore,
  TurnTiming,
} from './history/archive.js';
export type { ToolExecutionStart } from './history/store.js';
export { connectRedis, type RedisConnections } from './cluster/redis-connections.js';
export { RedisSessionCluster, type RedisClusterOptions } from './cluster/redis-cluster.js';
export type { SessionCoordination, TurnLease, SessionCluster, ClusterTurn } from './sessions/coordination.js';
export { LocalCoordination } from './sessions/local-coordination.js';
