/**
 * `${VAR}` and `${VAR:-default}` in the configuration file's string values read the
 * environment, so that secrets stay out of the file. `$${` writes a literal `${`.
 */
import { ConfigError } from '../util/setting-values.js';
import { atPath, type Mistake, type PathSegment } from './file-path.js';
import { looksSecret } from '../util/secrets.js';

type Env = Record<string, string | undefined>;

export interface Expanded<T> {
  value: T;
  /** What secret-looking variables (OPENAI_API_KEY, MCP_TOKEN) put into it: never printed. */
  secrets: string[];
  /** Each reference that could not be expanded, one line each (its string is left as it was). */
  problems: Mistake[];
}

const REFERENCE = /\$\$\{|\$\{([^}]*)(\}?)/g;
const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

/**
 * Every string value of `value` (never a key) with its references replaced. An unset
 * variable without a default is a mistake naming the path and the variable.
 */
export function expandVariables<T>(value: T, env: Env): Expanded<T> {
  const secrets: string[] = [];
  const problems: Mistake[] = [];
  const walk = (node: unknown, path: PathSegment[]): unknown => {
    if (typeof node === 'string') {
      try {
        return expandString(node, path, env, secrets);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems.push({ path, line: error.message });
        return node;
      }
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (node && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]));
    return node;
  };
  return { value: walk(value, []) as T, secrets, problems };
}

function expandString(text: string, path: PathSegment[], env: Env, secrets: string[]): string {
  if (!text.includes('${')) return text;
  return text.replace(REFERENCE, (match, inner: string | undefined, close: string | undefined) => {
    if (match === '$${') return '${';
    if (!close)
      throw new ConfigError(atPath(path, `"\${" without its closing "}" (write $\${ for a literal \${)`));
    const reference = VARIABLE.exec(inner!);
    if (!reference)
      throw new ConfigError(
        atPath(
          path,
          `"\${${inner}}" is not a variable like \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`,
        ),
      );
    const [, name, fallback] = reference as unknown as [string, string, string | undefined];
    const set = env[name];
    const value = fallback === undefined ? set : set || fallback;
    if (value === undefined)
      throw new ConfigError(
        atPath(path, `the environment variable ${name} is not set (set it, or write \${${name}:-default})`),
      );
    if (value && looksSecret(name)) secrets.push(value);
    return value;
  });
}
