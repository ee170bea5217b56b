/**
 * Assembles streamed `delta.tool_calls` fragments of OpenAI-compatible servers into
 * complete tool calls, and reports the progress of each after every fragment.
 *
 * Servers differ (PROTOCOL.md section 1), and all of these are tolerated:
 * - fragments are keyed by `index`; indexes may interleave;
 * - a missing `index`: an entry with a new `id` starts a new call, an entry with
 *   neither continues the most recent call;
 * - an `index` reused for a call with another `id` (some proxies number every call 0):
 *   the new id starts a new call;
 * - `id` or `name` repeated on every fragment: a repeated id never resets the call, a
 *   repeated name is never concatenated;
 * - a name that arrives after the first fragment, or in pieces;
 * - a whole call in one fragment.
 */
import { randomBytes } from 'node:crypto';
import type { ToolCall, ToolCallProgress } from '@aalis/protocol';

/** One entry of `choices[0].delta.tool_calls`, as loosely as servers send it. */
export interface ToolCallFragment {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface PendingCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

export class ToolCallAccumulator {
  readonly #calls = new Map<number, PendingCall>();
  /** Wire index -> our index, where a reused wire index was given to a new call. */
  readonly #renumbered = new Map<number, number>();
  #mostRecent: PendingCall | undefined;

  /** Adds one fragment; returns the call's progress after it, for a progress chunk. */
  add(fragment: ToolCallFragment): ToolCallProgress {
    const call = this.#callFor(fragment);
    const name = fragment.function?.name;
    if (name) call.name = mergeName(call.name, name);
    const args = fragment.function?.arguments;
    if (args) call.arguments += args;
    this.#mostRecent = call;
    const progress: ToolCallProgress = {
      index: call.index,
      name: call.name,
      charsAccumulated: call.arguments.length,
    };
    if (call.id) progress.callId = call.id;
    if (args) progress.argumentsDelta = args;
    return progress;
  }

  get size(): number {
    return this.#calls.size;
  }

  /** The complete calls, by index; calls the server gave no id get one made here. */
  calls(): ToolCall[] {
    const calls = [...this.#calls.values()].sort((a, b) => a.index - b.index);
    for (const call of calls) call.id ||= madeId();
    return calls.map(({ index, id, name, arguments: args }) => ({ index, id, name, arguments: args }));
  }

  #callFor(fragment: ToolCallFragment): PendingCall {
    const id = fragment.id || '';
    if (typeof fragment.index === 'number') {
      const wire = fragment.index;
      const known = this.#calls.get(this.#renumbered.get(wire) ?? wire);
      if (!known) return this.#open(wire, id);
      if (id && known.id && id !== known.id) {
        const call = this.#byId(id) ?? this.#open(this.#nextIndex(), id);
        this.#renumbered.set(wire, call.index);
        return call;
      }
      if (id && !known.id) known.id = id;
      return known;
    }
    if (id) return this.#byId(id) ?? this.#open(this.#nextIndex(), id);
    return this.#mostRecent ?? this.#open(0, '');
  }

  #byId(id: string): PendingCall | undefined {
    for (const call of this.#calls.values()) if (call.id === id) return call;
    return undefined;
  }

  #open(index: number, id: string): PendingCall {
    const call: PendingCall = { index, id, name: '', arguments: '' };
    this.#calls.set(index, call);
    return call;
  }

  #nextIndex(): number {
    let next = 0;
    for (const index of this.#calls.keys()) next = Math.max(next, index + 1);
    return next;
  }
}

/**
 * A name fragment that repeats the known name, or extends it, replaces it (servers that
 * send the name on every fragment); anything else is the next piece of it.
 */
function mergeName(known: string, fragment: string): string {
  return !known || fragment.startsWith(known) ? fragment : known + fragment;
}

const madeId = (): string => `call_${randomBytes(12).toString('base64url')}`;
