/**
 * What `aalis-server --check` must never print: secrets. A value is masked by its name
 * (a key, header or variable whose name says key, token, secret, password, authorization)
 * and, as a last net, by its text (what a secret-looking `${VAR}` put anywhere).
 */

export const MASK = '***';

const SECRET_NAME = /key|token|secret|passw(?:or)?d|authorization|credential|cookie/i;

/** Whether a key, header, flag or variable name says its value is a secret. */
export const looksSecret = (name: string): boolean => SECRET_NAME.test(name);

/** A map (an MCP server's env or headers) with the values of secret-looking names masked. */
export function maskByName(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(map).map(([name, value]) => [name, value && looksSecret(name) ? MASK : value]),
  );
}

/** Command-line arguments with the values of secret-looking flags masked: `--api-key=x`, `--token x`. */
export function maskArgs(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    const inline = /^(--?[^=\s]+)=/.exec(arg);
    if (inline) return looksSecret(inline[1]!) ? `${inline[1]}=${MASK}` : arg;
    const previous = args[index - 1];
    const flag = previous && /^--?[^=\s]+$/.test(previous) && !arg.startsWith('-');
    return flag && looksSecret(previous) ? MASK : arg;
  });
}

/** A URL with its password and the values of secret-looking query parameters masked. */
export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let masked = false;
  if (url.password) {
    url.password = MASK;
    masked = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (looksSecret(name)) {
      url.searchParams.set(name, MASK);
      masked = true;
    }
  }
  return masked ? url.toString() : text;
}

/** `text` with every occurrence of each secret replaced (secrets shorter than 4 characters are left). */
export function redact(text: string, secrets: Iterable<string>): string {
  // As written, and as JSON writes it (a secret with a quote or a backslash).
  const forms = [...secrets].flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]);
  const longestFirst = [...new Set(forms)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of longestFirst) result = result.split(secret).join(MASK);
  return result;
}
