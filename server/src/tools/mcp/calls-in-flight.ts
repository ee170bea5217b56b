/**
 * The tool calls an MCP server is running for us, and which of them an `elicitation/create`
 * from that server belongs to. MCP ties such a request to the call that caused it only
 * inside the server (stdio carries no link; Streamable HTTP sends it on the call's own
 * stream, which the SDK does not tell the client): the request goes to the one call in
 * flight, when it can ask a visitor. With several at once (sessions calling the same
 * server together, an MCP App's call among them) whose it is cannot be told, so it is
 * cancelled rather than shown to a visitor it may not be meant for, and logged.
 */
import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationRequest, ToolContext } from '../define-tool.js';
import type { Logger } from '../../util/logger.js';
import { CallDeadline } from './call-deadline.js';

/** What a call needs of the tool's context: its signal, where progress goes, and who to ask. */
export type CallContext = Pick<ToolContext, 'signal' | 'progress' | 'elicit' | 'elicitationCompleted'>;

export interface CallInFlight {
  context: CallContext;
  watch: CallDeadline;
  /** The server's ids of the `url` elicitations it made during this call. */
  urlIds: Set<string>;
}

export class CallsInFlight {
  readonly #calls = new Set<CallInFlight>();
  /** By the server's id of a `url` elicitation: the call it was made in. */
  readonly #byUrlId = new Map<string, CallInFlight>();

  constructor(
    private readonly serverName: string,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  begin(context: CallContext, silenceMs: number): CallInFlight {
    const call: CallInFlight = { context, watch: new CallDeadline(silenceMs), urlIds: new Set() };
    this.#calls.add(call);
    return call;
  }

  end(call: CallInFlight): void {
    call.watch.stop();
    this.#calls.delete(call);
    for (const id of call.urlIds) this.#byUrlId.delete(id);
  }

  /** The server's request, put to the visitor of the call it belongs to. */
  async elicit(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult> {
    // Every call counts, those that cannot ask a visitor too (an MCP App's): with two in
    // flight, the request may be the other's, and must not reach this one's visitor.
    const [call, ...others] = this.#calls;
    if (!call?.context.elicit || others.length > 0) {
      this.logger.warn(
        { mcpServer: this.serverName, callsInFlight: this.#calls.size },
        this.#calls.size > 1
          ? 'MCP server asked for input while running several calls: whose it is cannot be told, so it was cancelled'
          : 'MCP server asked for input outside any call a visitor can answer: cancelled',
      );
      return { action: 'cancel' };
    }
    const request: ElicitationRequest =
      params.mode === 'url'
        ? {
            serverName: this.serverName,
            mode: 'url',
            message: params.message,
            url: params.url,
            serverElicitationId: params.elicitationId,
          }
        : {
            serverName: this.serverName,
            mode: 'form',
            message: params.message,
            requestedSchema: params.requestedSchema as NonNullable<ElicitationRequest['requestedSchema']>,
          };
    if (params.mode === 'url') {
      call.urlIds.add(params.elicitationId);
      this.#byUrlId.set(params.elicitationId, call);
    }
    call.watch.pause();
    try {
      const reply = await call.context.elicit!(request, AbortSignal.any([signal, call.context.signal]));
      return reply.content === undefined
        ? { action: reply.action }
        : { action: reply.action, content: reply.content };
    } finally {
      call.watch.resume();
    }
  }

  /** The server's `notifications/elicitation/complete`: the visitor finished on its page. */
  completed(serverElicitationId: string): void {
    const call = this.#byUrlId.get(serverElicitationId);
    call?.context.elicitationCompleted?.(this.serverName, serverElicitationId);
  }
}
