/**
 * Opens one session with an MCP server: the transport its configuration names (a child
 * process over stdio, or Streamable HTTP), the initialize handshake and the full list of
 * its tools, all within one time limit. The long-lived connections and `--check` both
 * open their sessions here.
 */
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type ElicitRequestParams,
  type ElicitResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import { formatSeconds } from '../../util/format-seconds.js';
import { stdioServerEnvironment } from './child-environment.js';
import { isStdioServer, type McpServerConfig } from './config.js';
import { launchAs, resolveRunAs } from './run-as.js';
import { StderrTail } from './stderr-tail.js';
import { WatchedStdioTransport, exitText, type ProcessExit } from './stdio-process.js';

export interface OpenClientOptions {
  /** For the transport, the handshake and the list of tools together. */
  timeoutMs: number;
  /** Gives up at once (shutdown while a server is still starting). */
  signal?: AbortSignal;
  /** Each line the server writes to its stderr (stdio servers only). */
  onStderrLine?: (line: string) => void;
  /** The server said its list of tools changed (`notifications/tools/list_changed`). */
  onToolsChanged?: () => void;
  /** The session ended after it opened: the process exited, or the client was closed. */
  onClosed?: () => void;
  /**
   * The server asks the visitor for input (`elicitation/create`); `signal` fires when it
   * gives up the request (or the session ends). Without it, elicitation is not declared.
   */
  onElicit?: (params: ElicitRequestParams, signal: AbortSignal) => Promise<ElicitResult>;
  /** A `url` elicitation's flow finished (`notifications/elicitation/complete`). */
  onElicitationComplete?: (elicitationId: string) => void;
}

export interface OpenClient {
  client: Client;
  /** Every tool the server listed, in its order. */
  tools: Tool[];
  /** The last lines of a stdio server's stderr. */
  stderr: StderrTail | undefined;
  /** How a stdio server's process ended, once it has. */
  readonly exit: ProcessExit | undefined;
  /** Settles once all a stdio server's process wrote to stderr has been read (it ended). */
  stderrRead(): Promise<void>;
  /** Ends the session; a stdio server's process is stopped (stdin closed, then signals). */
  close(): Promise<void>;
}

/** Why a session could not be opened, in words fit for a log line or `--check`. */
export class McpConnectError extends Error {
  override readonly name = 'McpConnectError';
  constructor(
    message: string,
    /** The last lines the server wrote to its stderr, often the real reason. */
    readonly stderr: string[] = [],
    /** How a stdio server's process ended, when it did before it answered. */
    readonly exit?: ProcessExit,
  ) {
    super(message);
  }
}

// Servers see who is asking in the initialize handshake; the same file from src/ and dist/.
const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };
const CLIENT_INFO = { name: 'aalis-server', version };

/** The MCP Apps extension's id in capabilities (ext-apps' EXTENSION_ID, which only its server entry exports). */
const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** More pages than any real server has: a server that keeps sending cursors is cut off. */
const MAX_TOOL_PAGES = 100;
/** How long a Streamable HTTP server is given to end its session when we close. */
const END_SESSION_MS = 1_000;

/** Opens a session and lists the tools; throws `McpConnectError` (the session closed). */
export async function openMcpClient(
  config: McpServerConfig,
  options: OpenClientOptions,
): Promise<OpenClient> {
  const stderr = isStdioServer(config) ? new StderrTail(options.onStderrLine ?? (() => {})) : undefined;
  let transport: Transport;
  try {
    transport = createTransport(config, stderr);
  } catch (error) {
    // A user to run it as that is unknown, or one the server cannot switch to.
    throw new McpConnectError(shortMessage(error));
  }
  const watched = transport instanceof WatchedStdioTransport ? transport : undefined;
  const stderrRead = async () => watched?.stderrRead();
  // Elicitation is declared only where someone can be asked: servers register the tools
  // that elicit only for clients that declare it (the reference server does).
  const { onElicit, onElicitationComplete } = options;
  const client = new Client(CLIENT_INFO, {
    capabilities: {
      ...(onElicit ? { elicitation: { form: {}, url: {} } } : {}),
      // The chat renders MCP Apps (mcp-apps.ts): servers that offer their tools' UI only to
      // hosts that can show it see that this one can.
      extensions: { [UI_EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
    } as ClientCapabilities,
  });
  // Set before connecting: a server may change its list right after the handshake (the
  // reference server does), before `connect` has even returned.
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged?.());
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => onElicit(request.params, extra.signal));
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) =>
      onElicitationComplete?.(notification.params.elicitationId),
    );
  }
  let opened = false;
  client.onclose = () => {
    if (opened) options.onClosed?.();
  };
  const close = () => closeClient(client, transport);

  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const requestOptions = { signal, timeout: options.timeoutMs };
  try {
    await client.connect(transport, requestOptions);
    const tools = await listAllTools(client, requestOptions);
    opened = true;
    return {
      client,
      tools,
      stderr,
      get exit() {
        return watched?.exit;
      },
      stderrRead,
      close,
    };
  } catch (error) {
    // Before closing: an exit afterwards would be ours (stdin closed, then signals).
    const exit = watched?.exit;
    await close().catch(() => {});
    await stderrRead();
    const reason = options.signal?.aborted
      ? 'closed while it was starting'
      : exit
        ? `the process ${exitText(exit)} before it answered`
        : deadline.aborted
          ? `no answer within ${formatSeconds(options.timeoutMs)}`
          : connectFailureReason(error, config);
    throw new McpConnectError(reason, stderr?.lines ?? [], exit);
  }
}

/** Every tool, page after page. */
export async function listAllTools(
  client: Client,
  options: { signal?: AbortSignal; timeout?: number } = {},
): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

function createTransport(config: McpServerConfig, stderr: StderrTail | undefined): Transport {
  if (isStdioServer(config)) {
    // Looked up at each start: a user added or removed since is seen, as `id` would.
    const runAs = resolveRunAs(config.user, config.group);
    // Its stderr goes to the log line by line, and its last lines say why it failed.
    return new WatchedStdioTransport(
      {
        ...launchAs(runAs, config.command, config.args ?? []),
        env: stdioServerEnvironment(config.env, runAs),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      },
      stderr!,
    );
  }
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers ?? {} },
  });
}

/**
 * Whether a failed Streamable HTTP request means the server is out of reach: fetch's
 * TypeError ("fetch failed": refused, reset, no such host) or the SDK's
 * StreamableHTTPError (a status such as 404, for a session the server no longer has).
 */
export const isHttpTransportFailure = (error: unknown): boolean =>
  error instanceof TypeError || error instanceof StreamableHTTPError;

async function closeClient(client: Client, transport: Transport): Promise<void> {
  // A Streamable HTTP server keeps a session until told; a dead one is not waited for.
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      new Promise((resolve) => (timer = setTimeout(resolve, END_SESSION_MS))),
    ]);
    clearTimeout(timer);
  }
  await client.close();
}

/** The reason a session did not open, without the server's address or headers. */
function connectFailureReason(error: unknown, config: McpServerConfig): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (isStdioServer(config) && code === 'ENOENT') {
    return config.cwd === undefined
      ? `the command "${config.command}" was not found`
      : `the command "${config.command}" or the directory "${config.cwd}" was not found`;
  }
  if (isStdioServer(config) && code === 'EACCES') return `the command "${config.command}" may not be run`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return isStdioServer(config) ? 'the process exited before it answered' : 'the connection closed';
  }
  return shortMessage(error);
}

/** An error's message with its cause's (fetch says only "fetch failed"), cut to a line. */
export function shortMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = cause ? String(cause.code ?? cause.message ?? '') : '';
  const text = detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
  return text.replace(/\s+/g, ' ').slice(0, 300);
}
