/**
 * Runs one complete tool call: parses its arguments, checks them against the tool's
 * schema, and runs it under a signal that fires on abort or when its time is up. Every
 * failure becomes an error result the model can read and correct; nothing throws.
 */
import type { ToolCall } from '@aalis/protocol';
import { formatSeconds } from '../util/format-seconds.js';
import { ToolError, type ToolContext, type ToolRegistry } from '../tools/define-tool.js';
import type { ErrorReporter } from './public-errors.js';

export interface ParsedCall {
  call: ToolCall;
  /** The parsed JSON, what the tool is given; the raw text when it did not parse. */
  arguments: unknown;
  /**
   * The arguments as the model wrote them (`{}` for none): what the events carry, the
   * history keeps, the card shows and the model is sent back. Never parsed again.
   */
  text: string;
  /** Why the call cannot run, decided before it starts. */
  refusal?: string;
}

export interface ToolOutcome {
  result: unknown;
  isError: boolean;
  /**
   * The turn was stopped (a visitor's Stop, a shutdown) while the tool ran, and it was
   * cut off: what it did before is not known, so it may have completed (status `unknown`).
   * Not set for a tool that failed, timed out or ended on its own first.
   */
  cancelled?: true;
}

export function parseCall(call: ToolCall, tools: ToolRegistry): ParsedCall {
  // Some models send "" for a tool without parameters.
  const text = call.arguments.trim() === '' ? '{}' : call.arguments;
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch (error) {
    return {
      call,
      arguments: text,
      text,
      refusal: `the arguments are not valid JSON (${(error as Error).message})`,
    };
  }
  if (!tools.get(call.name)) {
    return {
      call,
      arguments: args,
      text,
      refusal: `there is no tool named "${call.name}"; the tools are: ${tools.names.join(', ')}`,
    };
  }
  const valid = tools.validate(call.name, args);
  return valid.ok
    ? { call, arguments: args, text }
    : { call, arguments: args, text, refusal: `invalid arguments: ${valid.message}` };
}

export async function runTool(
  parsed: ParsedCall,
  tools: ToolRegistry,
  context: Omit<ToolContext, 'signal'>,
  turnSignal: AbortSignal,
  defaultTimeoutMs: number,
  report: ErrorReporter,
): Promise<ToolOutcome> {
  if (parsed.refusal) return { result: parsed.refusal, isError: true };
  const tool = tools.get(parsed.call.name)!;
  const timeoutMs = tool.timeoutMs ?? defaultTimeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([turnSignal, timeout]);
  // A tool that ignores its signal still ends for us when the signal fires.
  let onAbort: () => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  stopped.catch(() => {}); // Only ever observed through the race below.
  try {
    const result = await Promise.race([
      Promise.resolve().then(() => tool.execute(parsed.arguments, { ...context, signal })),
      stopped,
    ]);
    return { result: result === undefined ? null : result, isError: false };
  } catch (error) {
    if (turnSignal.aborted) return { result: 'aborted', isError: true, cancelled: true };
    if (timeout.aborted) return { result: `timed out after ${formatSeconds(timeoutMs)}`, isError: true };
    if (error instanceof ToolError) return { result: error.message, isError: true };
    // Anything else may say where the tool's database or service lives: the visitor
    // (and the model) read only that it failed, the log has the rest. A tool that
    // wants its words shown throws a ToolError.
    const errorId = report(error, `tool ${parsed.call.name} failed`);
    return { result: `the tool failed unexpectedly (error id ${errorId})`, isError: true };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
