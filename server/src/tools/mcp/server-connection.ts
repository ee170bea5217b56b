/**
 * One MCP server over the life of the Aalis server: connected at start, its tools listed
 * and followed (`notifications/tools/list_changed`), and connected again with backoff
 * whenever it fails to start or stops (a stdio process that exits, a Streamable HTTP
 * server that can no longer be reached). While it is down its tools are absent; nothing
 * it does ever throws out of here into the rest of the server.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { formatSeconds } from '../../util/format-seconds.js';
import type { Logger } from '../../util/logger.js';
import { ToolError } from '../define-tool.js';
import { isStdioServer, type McpServerConfig } from './config.js';
import {
  isHttpTransportFailure,
  listAllTools,
  openMcpClient,
  shortMessage,
  type OpenClient,
} from './open-client.js';
import { CallsInFlight, type CallContext } from './calls-in-flight.js';
import { reportProgress } from './progress-update.js';
import { exitText } from './stdio-process.js';
import { retryDelayMs, type RetryPolicy, DEFAULT_RETRY_MAX_MS } from './retry-delay.js';
import { selectTools } from './select-tools.js';

/** The server's one logger (util/logger.ts); `debug`, when there, hears what stdio servers write to stderr. */
export type McpLogger = Logger;

export interface McpServerConnectionOptions {
  logger: McpLogger;
  /** Start, handshake and first list of tools, per attempt. */
  connectTimeoutMs: number;
  retry: RetryPolicy;
  /** Its offered tools changed: it connected, stopped, or changed its list. */
  onToolsChanged(): void;
}

/** The SDK's request timeout, out of the way (setTimeout's largest): the silence limit is ours. */
const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;

/** One attempt at a session: events of an older one are recognised and ignored. */
interface Attempt {
  session?: OpenClient;
  /** The server said its tools changed before the first list was in. */
  listedWhileOpening?: boolean;
  /** A listing under way, and whether another change came in meanwhile. */
  listing?: Promise<void>;
  listAgain?: boolean;
}

export class McpServerConnection {
  readonly #options: McpServerConnectionOptions;
  #attempt: Attempt | undefined;
  #tools: Tool[] = [];
  #failures = 0;
  #connectedAt = 0;
  #everConnected = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #opening: Promise<void> | undefined;
  #closed = false;
  /** Aborted by close(): a server still starting is given up on at once. */
  readonly #stopping = new AbortController();
  readonly #calls: CallsInFlight;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    options: McpServerConnectionOptions,
  ) {
    this.#options = options;
    this.#calls = new CallsInFlight(name, options.logger);
  }

  /** The session open now, if any: for reading its app resources and the calls its apps make. */
  get session(): OpenClient | undefined {
    return this.#attempt?.session;
  }

  /** Its tools the model is offered now (none while it is down). */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  get connected(): boolean {
    return this.#attempt?.session !== undefined;
  }

  /** The first attempt; settles when it connected or failed (retries go on after). */
  start(): Promise<void> {
    return this.#open();
  }

  /**
   * Runs one of its tools. Rejects with a ToolError the model can read when the server
   * is down, stops mid-call, refuses, or goes silent for `timeoutMs` (progress counts as
   * life); with the signal's reason when the call was aborted (the server is told).
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    context: CallContext,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    const attempt = this.#attempt;
    const session = attempt?.session;
    if (!attempt || !session) {
      throw new ToolError(
        `the MCP server "${this.name}" is not connected at the moment (it is being ${this.#everConnected ? 'restarted' : 'started'}); try again shortly`,
      );
    }
    const call = this.#calls.begin(context, timeoutMs);
    try {
      // The SDK sends notifications/cancelled when the signal fires, and asks for progress
      // (a progressToken) because of onprogress. The silence limit is ours (call-deadline.ts):
      // the SDK's own timeout, which only progress restarts, would cut a call waiting on a
      // visitor's answer; it is left at its largest.
      return (await session.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: AbortSignal.any([context.signal, call.watch.signal]),
        timeout: NO_SDK_TIMEOUT_MS,
        onprogress: (update) => {
          call.watch.restart();
          reportProgress(context, update);
        },
      })) as CallToolResult;
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (call.watch.fired) throw this.#silent(timeoutMs);
      throw this.#callFailure(error, attempt, timeoutMs);
    } finally {
      this.#calls.end(call);
    }
  }

  /** Closes the session, stops a stdio server's process, and stops retrying. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopping.abort();
    clearTimeout(this.#retryTimer);
    const session = this.#attempt?.session;
    this.#attempt = undefined;
    this.#tools = [];
    await Promise.all([session?.close().catch(() => {}), this.#opening]);
  }

  #open(): Promise<void> {
    const attempt: Attempt = {};
    this.#attempt = attempt;
    const { logger, connectTimeoutMs } = this.#options;
    this.#opening = (async () => {
      let session: OpenClient;
      try {
        session = await openMcpClient(this.config, {
          timeoutMs: connectTimeoutMs,
          signal: this.#stopping.signal,
          onStderrLine: (line) => logger.debug?.({ mcpServer: this.name, stderr: line }, 'MCP server stderr'),
          onToolsChanged: () => this.#toolsChanged(attempt),
          onClosed: () => this.#lost(attempt, 'it stopped'),
          onElicit: (params, signal) => this.#calls.elicit(params, signal),
          onElicitationComplete: (elicitationId) => this.#calls.completed(elicitationId),
        });
      } catch (error) {
        if (this.#attempt === attempt && !this.#closed) {
          const { stderr = [] } = error as { stderr?: string[] };
          this.#retryLater(shortMessage(error), stderr);
        }
        return;
      }
      if (this.#attempt !== attempt || this.#closed) return void (await session.close().catch(() => {}));
      attempt.session = session;
      this.#connectedAt = Date.now();
      this.#everConnected = true;
      this.#setTools(session.tools, true);
      if (attempt.listedWhileOpening) this.#toolsChanged(attempt);
    })()
      // `ready` never rejects, and a retry timer never throws into the process.
      .catch((error: unknown) =>
        logger.error({ mcpServer: this.name, err: error }, 'MCP server: unexpected error'),
      )
      .finally(() => (this.#opening = undefined));
    return this.#opening;
  }

  /** The server said its list changed: list again, one listing at a time. */
  #toolsChanged(attempt: Attempt): void {
    if (this.#attempt !== attempt) return;
    const session = attempt.session;
    if (!session) return void (attempt.listedWhileOpening = true);
    if (attempt.listing) return void (attempt.listAgain = true);
    attempt.listing = (async () => {
      do {
        attempt.listAgain = false;
        try {
          const tools = await listAllTools(session.client, {
            timeout: this.#options.connectTimeoutMs,
            signal: this.#stopping.signal,
          });
          if (this.#attempt === attempt) this.#setTools(tools, false);
        } catch (error) {
          // The tools it had stay offered; a stopped server is handled by #lost.
          if (this.#attempt === attempt)
            this.#options.logger.warn(
              { mcpServer: this.name, reason: shortMessage(error) },
              'MCP server: could not list its tools again after it said they changed',
            );
        }
      } while (attempt.listAgain && this.#attempt === attempt);
    })().finally(() => (attempt.listing = undefined));
  }

  #setTools(listed: readonly Tool[], connecting: boolean): void {
    const { tools, missing, taskOnly } = selectTools(listed, this.config.tools);
    this.#tools = tools;
    const notes = {
      ...(missing.length > 0 ? { notOnServer: missing } : {}),
      ...(taskOnly.length > 0 ? { taskOnlyLeftOut: taskOnly } : {}),
    };
    this.#options.logger.info(
      { mcpServer: this.name, tools: tools.map((tool) => tool.name), ...notes },
      connecting ? 'MCP server connected' : 'MCP server changed its tools',
    );
    this.#options.onToolsChanged();
  }

  /** The session ended under us: tools withdrawn, then a new attempt after a wait. */
  #lost(attempt: Attempt, reason: string): void {
    if (this.#attempt !== attempt || this.#closed) return;
    const session = attempt.session;
    this.#attempt = undefined;
    void session?.close().catch(() => {});
    this.#tools = [];
    this.#options.onToolsChanged();
    // A server that ran a good while before it stopped starts again from the first wait.
    if (Date.now() - this.#connectedAt >= (this.#options.retry.maxMs ?? DEFAULT_RETRY_MAX_MS))
      this.#failures = 0;
    // Said once the last of its stderr is read: its last words are often the reason.
    void (session?.stderrRead() ?? Promise.resolve()).then(() => {
      if (this.#closed || this.#attempt !== undefined) return;
      const exit = session?.exit;
      this.#retryLater(
        exit ? `${reason}: the process ${exitText(exit)}` : reason,
        session?.stderr?.lines ?? [],
      );
    });
  }

  #retryLater(reason: string, stderr: string[]): void {
    this.#failures += 1;
    const retryInMs = retryDelayMs(this.#failures, this.#options.retry);
    this.#options.logger.warn(
      { mcpServer: this.name, reason, retryInMs, ...(stderr.length > 0 ? { stderr } : {}) },
      'MCP server unavailable: its tools are left out until it is back',
    );
    this.#retryTimer = setTimeout(() => void this.#open(), retryInMs);
    // A retry alone does not keep the process alive (a CLI that is done exits).
    this.#retryTimer.unref();
  }

  #silent(timeoutMs: number): ToolError {
    return new ToolError(
      `the MCP server "${this.name}" sent neither a result nor progress for ${formatSeconds(timeoutMs)}; the call was cancelled`,
    );
  }

  #callFailure(error: unknown, attempt: Attempt, timeoutMs: number): unknown {
    const stopped =
      (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) || this.#attempt !== attempt;
    if (stopped) {
      return new ToolError(
        isStdioServer(this.config)
          ? `the MCP server "${this.name}" stopped while running the tool; it is being restarted`
          : `the connection to the MCP server "${this.name}" closed while it ran the tool; it is being reconnected`,
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return this.#silent(timeoutMs);
    if (error instanceof McpError) {
      return new ToolError(`the MCP server "${this.name}" refused the call: ${error.message}`);
    }
    // Streamable HTTP: the server is gone (fetch failed) or lost our session (404). Its
    // address stays in the log, never in what the model and the visitor read.
    if (!isStdioServer(this.config) && isHttpTransportFailure(error)) {
      this.#lost(attempt, shortMessage(error));
      return new ToolError(
        `the MCP server "${this.name}" could not be reached; it is being reconnected, try again shortly`,
      );
    }
    // Anything else (a result that is not MCP, a bug) is the agent's to log under an id.
    return error;
  }
}
