/**
 * A tool's result, cut to a length every tab and the model can take. A result goes to
 * every connection of the session, into the history, and back to the model; a tool that
 * returns megabytes (a whole file, a query without a limit) would otherwise make the
 * session one no tab can join, and a context no model can read.
 */
export function capResult(result: unknown, maxChars: number): unknown {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  if (text === undefined || text.length <= maxChars) return result;
  return `${text.slice(0, maxChars)}… [cut: the result had ${text.length} characters, the first ${maxChars} are kept]`;
}
