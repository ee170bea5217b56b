/**
 * An upstream agent's run, event by event, as our frames: text and reasoning stream as
 * they come; a tool call being written is a card whose count rises (progress with its id
 * and fragment); once the writing is over (a result comes, text follows, or the run ends)
 * the round's cards go (`done`) and each call written is shown running (`tool_execute`
 * `start`, with how long it took to write), in the order the built-in agent uses; each
 * result ends its call (`end`). Usage is told with the run's last `done`.
 *
 * It holds the run to its protocol's order: an event for a call or block never opened,
 * one already closed, a second end or result, anything after the run finished, each
 * ends the turn with an error instead of showing something untrue. A call whose
 * arguments never ended is never shown as run.
 */
import type { StreamChunkMessage, Usage } from '@aalis/protocol';
import { capResult } from '../../agent/cap-result.js';
import type { ToolExecuteEvent } from '../../agent/turn-agent.js';
import type { TurnRecorder } from '../../agent/turn-recorder.js';
import type { AgentStreamEvent, BlockKind } from './agent-event.js';
import { DEFAULT_MAX_TURN_CHARS } from '../../agent/limits.js';
import { AgentRunError, agentFailed, unreadable } from './agent-errors.js';

/** One tool call of the run, from its first fragment to its result. */
interface Call {
  id: string;
  name: string;
  /** Its place among the calls of its round: its card's index. */
  index: number;
  arguments: string;
  /** writing: fragments come; written: complete, not shown running yet; running: shown; ended: has its result. */
  state: 'writing' | 'written' | 'running' | 'ended';
  /** Its result came (it may wait to be shown: see `#held`). */
  answered?: boolean;
  /** When it was shown running (our clock), for its duration. */
  startedAt?: number;
  /** Ends its span with how it came out. */
  settle?: (outcome: { isError: boolean }) => void;
}

/** What the model reads (and the tab shows) of a call the run left without a result. */
export const NO_RESULT = 'The agent gave no result for this call.';
/** A call that was running when the turn was stopped or failed: it may have completed. */
export const CUT_OFF_RESULT = 'aborted';

export class EventTranslator {
  readonly #calls = new Map<string, Call>();
  /** The calls written (or still being written) that are not shown running yet. */
  #round: Call[] = [];
  /**
   * Text and results that came while a call of the round was still being written, in
   * order: shown then, they would end the round's cards (`done`) under the call still
   * written, whose card would vanish and its arguments go on after their end. They are
   * shown once no call is being written.
   */
  readonly #held: Array<() => void> = [];
  /**
   * What is held, in characters: none of it has passed the turn's cap yet (it counts what
   * is shown), so it has a cap of its own, the turn's.
   */
  #heldChars = 0;
  /** Calls of the round whose arguments are still coming. */
  #writingCount = 0;
  /** The text and reasoning blocks open now, by kind and id. */
  readonly #blocks = new Set<string>();
  #usage: Usage | undefined;
  #finished = false;

  constructor(
    private readonly agent: string,
    private readonly sessionId: string,
    private readonly turn: TurnRecorder,
    private readonly now: () => number,
    private readonly maxToolResultChars: number,
  ) {}

  /** Whether the run said it completed. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Applies one event; true when it showed the visitor something. Throws an AgentRunError for one out of order. */
  apply(event: AgentStreamEvent): boolean {
    if (this.#finished) throw this.#wrong(`${event.source} after the run finished`);
    switch (event.type) {
      case 'block-start':
        if (this.#blocks.has(blockKey(event.kind, event.id)))
          throw this.#wrong(`${event.source} for ${event.kind} ${event.id}, which was already open`);
        this.#blocks.add(blockKey(event.kind, event.id));
        return false;
      case 'block-delta':
        this.#openBlock(event.kind, event.id, event.source);
        if (!event.delta) return false;
        this.#whenWritten(event.delta.length, () => {
          this.#flush();
          this.#stream(
            event.kind === 'text' ? { contentDelta: event.delta } : { reasoningDelta: event.delta },
          );
        });
        return true;
      case 'block-end':
        this.#openBlock(event.kind, event.id, event.source);
        this.#blocks.delete(blockKey(event.kind, event.id));
        return false;
      case 'call-start':
        return this.#start(event.callId, event.name, event.source);
      case 'call-delta':
        return this.#write(event.callId, event.delta, event.source);
      case 'call-end':
        return this.#written(event.callId, event.arguments, event.source);
      case 'call-result':
        return this.#result(event.callId, event.result, event.isError, event.source);
      case 'usage':
        this.#usage = event.usage;
        return false;
      case 'finished':
        return this.#finish(event.source);
      case 'failed':
        // The tokens spent before the failure still count against the budgets.
        if (this.#usage) this.#stream({ usage: this.#usage });
        throw agentFailed(this.agent, event.message);
    }
  }

  /**
   * The turn ends without the run finishing (a Stop, a failure): calls shown running got
   * no result and may have completed, so they end cut off (kept as `unknown`).
   */
  abandon(): void {
    for (const call of this.#calls.values()) {
      if (call.state !== 'running') continue;
      this.turn.cancelled(call);
      this.#end(call, CUT_OFF_RESULT, true);
    }
  }

  #start(callId: string, name: string, source: string): boolean {
    if (this.#calls.has(callId)) throw this.#wrong(`${source} for tool call ${callId}, which had started`);
    // The round keeps every call until it is shown running, so its length is the next index.
    const call: Call = { id: callId, name, index: this.#round.length, arguments: '', state: 'writing' };
    this.#calls.set(callId, call);
    this.#round.push(call);
    this.#writingCount += 1;
    this.#progress(call, '');
    return true;
  }

  #write(callId: string, delta: string, source: string): boolean {
    const call = this.#call(callId, source);
    if (call.state !== 'writing')
      throw this.#wrong(`${source} for tool call ${callId} after its arguments ended`);
    if (!delta) return false;
    call.arguments += delta;
    this.#progress(call, delta);
    return true;
  }

  #written(callId: string, whole: string | undefined, source: string): boolean {
    const call = this.#call(callId, source);
    if (call.state !== 'writing') throw this.#wrong(`${source} for tool call ${callId}, which had ended`);
    if (whole !== undefined) call.arguments = whole;
    call.state = 'written';
    this.#writingCount -= 1;
    if (this.#writingCount === 0) {
      this.#heldChars = 0;
      for (const show of this.#held.splice(0)) show();
    }
    return false;
  }

  #result(callId: string, result: unknown, isError: boolean, source: string): boolean {
    const call = this.#call(callId, source);
    if (call.state === 'writing')
      throw this.#wrong(`${source} for tool call ${callId} before its arguments ended`);
    if (call.answered) throw this.#wrong(`a second ${source} for tool call ${callId}`);
    call.answered = true;
    // A result is held at most at its capped size.
    this.#whenWritten(Math.min(JSON.stringify(result ?? null).length, this.maxToolResultChars), () => {
      this.#flush();
      this.#end(call, result, isError);
    });
    return true;
  }

  /** Shows at once, or once no call of the round is being written (`#held`), `chars` long. */
  #whenWritten(chars: number, show: () => void): void {
    if (this.#writingCount === 0) return show();
    this.#heldChars += chars;
    if (this.#heldChars > DEFAULT_MAX_TURN_CHARS)
      throw new AgentRunError(
        'too_large',
        `the ${this.agent} agent sent over ${DEFAULT_MAX_TURN_CHARS} characters while a tool call stayed unfinished`,
      );
    this.#held.push(show);
  }

  #finish(source: string): boolean {
    const writing = this.#round.find((call) => call.state === 'writing');
    if (writing) throw this.#wrong(`${source} while tool call ${writing.id} was still being written`);
    this.#finished = true;
    this.#flush({ done: true, ...(this.#usage ? { usage: this.#usage } : {}) });
    // A call the run never answered did not run as far as anyone can tell: an error, never done.
    for (const call of this.#calls.values()) if (call.state === 'running') this.#end(call, NO_RESULT, true);
    return true;
  }

  /**
   * The writing is over: the round's cards go (`done`), and the calls written are shown
   * running, in index order. A call still being written stays in the round.
   */
  #flush(last?: Omit<StreamChunkMessage, 'sessionId'>): void {
    // Only called once no call is being written: the round is all written, in index order.
    const written = this.#round;
    if (written.length || last) this.#stream(last ?? { done: true });
    if (!written.length) return;
    this.#round = [];
    for (const call of written) {
      call.state = 'running';
      call.startedAt = this.now();
      this.#tool(call, 'start', { arguments: call.arguments, ...this.turn.writing(call) });
      void this.turn.trace.tool(call).run(
        () => new Promise<{ isError: boolean }>((resolve) => (call.settle = resolve)),
        (outcome) => (outcome.isError ? 'error' : 'ok'),
      );
    }
  }

  #end(call: Call, result: unknown, isError: boolean): void {
    call.state = 'ended';
    call.answered = true;
    this.#tool(call, 'end', {
      result: capResult(result, this.maxToolResultChars),
      isError,
      durationMs: Math.max(0, this.now() - (call.startedAt ?? this.now())),
    });
    call.settle?.({ isError });
  }

  #progress(call: Call, delta: string): void {
    this.#stream({
      toolCallProgress: {
        index: call.index,
        name: call.name,
        charsAccumulated: call.arguments.length,
        callId: call.id,
        argumentsDelta: delta,
      },
    });
  }

  #stream(chunk: Omit<StreamChunkMessage, 'sessionId'>): void {
    this.turn.stream({ sessionId: this.sessionId, ...chunk });
  }

  #tool(call: Call, phase: 'start' | 'end', more: Partial<ToolExecuteEvent>): void {
    this.turn.tool({
      sessionId: this.sessionId,
      phase,
      callId: call.id,
      index: call.index,
      name: call.name,
      ...more,
    });
  }

  #call(callId: string, source: string): Call {
    const call = this.#calls.get(callId);
    if (!call) throw this.#wrong(`${source} for tool call ${callId}, which never started`);
    return call;
  }

  #openBlock(kind: BlockKind, id: string, source: string): void {
    if (!this.#blocks.has(blockKey(kind, id)))
      throw this.#wrong(`${source} for ${kind} ${id}, which is not open`);
  }

  #wrong(what: string) {
    return unreadable(this.agent, what);
  }
}

const blockKey = (kind: BlockKind, id: string) => `${kind}\u0000${id}`;
