/**
 * The calls an MCP App makes through the chat (its bridge's `tools/call`, sent by the
 * widget as `app_tool_call`): allowed only for an app the session shows, to a tool of that
 * app's own MCP server, under the site's approval rules (mcp-apps.ts), a few per minute
 * per connection. Each is answered with `app_tool_result`, to the connection that asked
 * only; nothing about it enters the conversation.
 */
import type { AppToolCallFrame, AppToolResultFrame, ToolApp } from '@aalis/protocol';
import { logErrorWithId } from '../util/log-error.js';
import type { Logger } from '../util/logger.js';
import { RateWindow } from '../util/rate-window.js';

/** What answers an app's calls (McpApps, tools/mcp/mcp-apps.ts). */
export interface AppTools {
  call(
    serverName: string,
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ ok: true; result: object } | { ok: false; error: string }>;
}

/** Calls one connection's apps may make per minute (an app polling its server stays well under). */
export const APP_CALLS_PER_MINUTE = 60;

export class AppToolCalls {
  readonly #rate = new RateWindow(APP_CALLS_PER_MINUTE, 60_000);
  /** Aborted when the connection closes: its apps' calls are given up. */
  readonly #closed = new AbortController();

  constructor(
    private readonly tools: AppTools | undefined,
    /** The app of a tool call of the connection's session (SessionHub.toolApp). */
    private readonly appOf: (callId: string) => Promise<ToolApp | undefined>,
    private readonly answer: (frame: AppToolResultFrame) => void,
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  /** Answers the call; never rejects (a bug is logged, and the app told under an error id). */
  async handle(frame: AppToolCallFrame): Promise<void> {
    try {
      await this.#handle(frame);
    } catch (error) {
      const errorId = logErrorWithId(this.log, error, "an MCP App's call failed");
      this.answer({
        type: 'app_tool_result',
        requestId: frame.requestId,
        error: `internal error (error id ${errorId})`,
      });
    }
  }

  async #handle(frame: AppToolCallFrame): Promise<void> {
    const refuse = (error: string) =>
      this.answer({ type: 'app_tool_result', requestId: frame.requestId, error });
    if (!this.tools) return refuse('this server runs no MCP Apps');
    if (!this.#rate.take().ok) return refuse('too many calls from this app: try again in a minute');
    const app = await this.appOf(frame.callId);
    if (!app) return refuse('no app of this conversation is shown for that call');
    const outcome = await this.tools.call(
      app.serverName,
      frame.name,
      frame.arguments ?? {},
      this.#closed.signal,
    );
    if (this.#closed.signal.aborted) return;
    this.answer(
      outcome.ok
        ? {
            type: 'app_tool_result',
            requestId: frame.requestId,
            result: outcome.result as Record<string, unknown>,
          }
        : { type: 'app_tool_result', requestId: frame.requestId, error: outcome.error },
    );
  }

  close(): void {
    this.#closed.abort();
  }
}
