/**
 * The configuration file's JSON, its syntax errors said in one line with where they are
 * (`Expected ',' or '}' after property value at line 4, column 3`), and never with a
 * piece of the file in them: the file may hold a secret next to the mistake.
 */
import { ConfigError } from '../util/setting-values.js';

export function parseJson(text: string): unknown {
  const source = text.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    if (/Unexpected end of JSON input/.test(message)) {
      throw new ConfigError(
        source.trim() ? 'not valid JSON: it ends too early' : 'empty: it must hold a JSON object',
      );
    }
    // V8 says where for most mistakes ("at position 14"), not for an unexpected token,
    // and quotes the text around it: the position is then found by parsing prefixes.
    const at = /at position (\d+)/.exec(message);
    const position = at ? Number(at[1]) : locate(source);
    const what =
      /^(Unexpected token '.+?'),/s.exec(message)?.[1] ?? message.replace(/ in JSON at position.*$/s, '');
    const reason = /is not valid JSON/.test(what) ? 'unexpected text' : what;
    throw new ConfigError(`not valid JSON: ${reason} at ${lineAndColumn(source, position)}`);
  }
}

/**
 * Where a syntax error is: the shortest prefix that already fails for a reason other than
 * ending early (an error placed at its very end is one).
 */
function locate(text: string): number {
  const failsInside = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return false;
    } catch (error) {
      const message = (error as Error).message;
      if (/Unexpected end of JSON input/.test(message)) return false;
      const at = /at position (\d+)/.exec(message);
      return at ? Number(at[1]) < length : true;
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (failsInside(middle)) high = middle;
    else low = middle + 1;
  }
  return Math.max(0, low - 1);
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
