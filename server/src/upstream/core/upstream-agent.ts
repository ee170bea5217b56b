/**
 * An agent that runs elsewhere, answering our turns: per turn one run of it over HTTP,
 * with the conversation so far, its events shown as they come (event-translator.ts) and
 * recorded like the built-in agent's (TurnRecorder), so the session hub around it gives
 * it history, resume, Stop, budgets, identity and scale-out unchanged. The agent runs its
 * own tools: ours, approvals and the at-most-once log are not used.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { latestVersions } from '@aalis/protocol';
import { logErrorWithId } from '../../util/log-error.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS } from '../../agent/limits.js';
import { loadImages } from '../../agent/load-images.js';
import type { ErrorReporter } from '../../agent/public-errors.js';
import { TurnTrace } from '../../agent/tracing.js';
import { TurnRecorder } from '../../agent/turn-recorder.js';
import {
  listenerSafeEmit,
  type AgentEvents,
  type AgentLogger,
  type EmitAgentEvent,
  type TurnAgent,
  type TurnInput,
  type TurnResult,
} from '../../agent/turn-agent.js';
import { publicAgentError, runCutOff } from './agent-errors.js';
import { EventTranslator } from './event-translator.js';
import type { UpstreamProtocol } from './protocol.js';
import { readRun, type RunPatience } from './run-stream.js';
import type { SseLimits } from './sse-events.js';

export interface UpstreamAgentOptions extends RunPatience {
  protocol: UpstreamProtocol;
  /** Where a run is posted. */
  url: string;
  /** Sent with every run (an `Authorization` the agent expects). */
  headers?: Readonly<Record<string, string>>;
  /** Where the detail of an error a visitor sees only by its id goes. */
  logger: AgentLogger;
  /** Longest tool result kept, as text; a longer one is cut (every tab and the history get the same). */
  maxToolResultChars?: number;
  /** Longest line and event of the agent's stream. */
  limits?: SseLimits;
  now?: () => number;
}

export class UpstreamAgent extends EventEmitter<AgentEvents> implements TurnAgent {
  readonly #options: UpstreamAgentOptions;
  readonly #emit: EmitAgentEvent;
  readonly #report: ErrorReporter;

  constructor(options: UpstreamAgentOptions) {
    super();
    this.#options = options;
    this.#emit = listenerSafeEmit(this, options.logger);
    this.#report = (error, what) => logErrorWithId(options.logger, error, what);
  }

  /** The protocol: `ag-ui`, `ai-sdk`. */
  get name(): string {
    return this.#options.protocol.name;
  }

  /** Where the agent is, for the start-up line (a password in it is the caller's to mask). */
  get url(): string {
    return this.#options.url;
  }

  async runTurn(input: TurnInput): Promise<TurnResult> {
    const { protocol, url, headers = {}, limits, maxToolResultChars, now = Date.now } = this.#options;
    const turn = new TurnRecorder(input.sessionId, now, this.#emit, input.view);
    turn.trace = new TurnTrace({ messageId: turn.id, provider: protocol.name, model: new URL(url).host });
    const translator = new EventTranslator(
      protocol.name,
      input.sessionId,
      turn,
      now,
      maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
    );
    try {
      turn.trace.round(1);
      const history = latestVersions(input.history);
      const images = await loadImages(history, input.images);
      const reader = protocol.reader();
      await readRun(
        {
          agent: protocol.name,
          url,
          headers,
          body: protocol.body({ sessionId: input.sessionId, runId: randomUUID(), history, images }),
          checkResponse: protocol.checkResponse?.bind(protocol),
          limits,
          signal: input.signal,
          onStatus: (status) => this.#emit('turn:status', { sessionId: input.sessionId, ...status }),
          patience: this.#options,
          over: () => translator.finished,
        },
        async (event) => {
          let shown = false;
          for (const each of await reader.read(event)) shown = translator.apply(each) || shown;
          return shown;
        },
      );
      if (!translator.finished) throw runCutOff(protocol.name);
      return turn.finish('complete');
    } catch (error) {
      translator.abandon();
      return turn.failed(error, input.signal, (e) => publicAgentError(e, this.#report), this.#report);
    } finally {
      turn.trace.end();
    }
  }
}
