/**
 * `aalis-server pause|resume|status`: the owner's switch from a shell, a client of the
 * admin routes (pause-routes.ts) of a running server, which may be another machine's.
 *
 *   aalis-server pause --url https://chat.example.com --token "$AALIS_ADMIN_TOKEN" --reason "the bill"
 *
 * The token comes from `--token`, else `AALIS_ADMIN_TOKEN` (or `AALIS_ADMIN_TOKEN_FILE`);
 * the address from `--url`, else this machine's server on `PORT` (3000). Prints the state
 * the server answers; exits 0, 1 when the server refused or could not be reached, 2 on a
 * mistake in the command.
 */
import { ADMIN_PATHS } from './pause-routes.js';

export const ADMIN_COMMANDS = ['pause', 'resume', 'status'] as const;
export type AdminCommand = (typeof ADMIN_COMMANDS)[number];

export const ADMIN_USAGE = `Usage: aalis-server pause|resume|status [--url URL] [--token TOKEN] [--reason TEXT]
  --url URL       the server (default http://127.0.0.1:$PORT, PORT 3000)
  --token TOKEN   its AALIS_ADMIN_TOKEN (default: the AALIS_ADMIN_TOKEN variable)
  --reason TEXT   pause only: why, shown by status`;

type Env = Record<string, string | undefined>;
type Print = (line: string) => void;

interface Parsed {
  url: string;
  token: string;
  reason?: string;
}

/** The command's options, or the mistake in them. */
function parse(command: AdminCommand, argv: readonly string[], env: Env): Parsed | string {
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(url|token|reason)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) return `unknown argument "${argv[i]}"`;
    const value = match[2] ?? argv[++i];
    if (value === undefined || value === '') return `--${match[1]} needs a value`;
    values[match[1]!] = value;
  }
  if (values.reason !== undefined && command !== 'pause') return '--reason goes with pause only';
  const token = values.token ?? env.AALIS_ADMIN_TOKEN?.trim();
  if (!token) return 'the admin token is missing: --token TOKEN or AALIS_ADMIN_TOKEN';
  const url = values.url ?? `http://127.0.0.1:${env.PORT?.trim() || '3000'}`;
  try {
    new URL(url);
  } catch {
    return `--url must be the server's address, like https://chat.example.com; it is "${url}"`;
  }
  return { url, token, ...(values.reason === undefined ? {} : { reason: values.reason }) };
}

export async function runAdminCommand(
  command: AdminCommand,
  argv: readonly string[],
  env: Env,
  { out = console.log, err = console.error }: { out?: Print; err?: Print } = {},
): Promise<number> {
  const parsed = parse(command, argv, env);
  if (typeof parsed === 'string') {
    err(`aalis-server ${command}: ${parsed}`);
    err(ADMIN_USAGE);
    return 2;
  }
  const target = new URL(ADMIN_PATHS[command], parsed.url);
  let response: Response;
  try {
    response = await fetch(target, {
      method: command === 'status' ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${parsed.token}`,
        ...(command === 'status' ? {} : { 'content-type': 'application/json' }),
      },
      ...(command === 'status'
        ? {}
        : { body: JSON.stringify(parsed.reason ? { reason: parsed.reason } : {}) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    err(`aalis-server ${command}: ${target.origin} could not be reached: ${(error as Error).message}`);
    return 1;
  }
  const text = await response.text();
  if (response.status === 404) {
    err(`aalis-server ${command}: ${target.origin} has no admin routes: set AALIS_ADMIN_TOKEN on the server`);
    return 1;
  }
  if (!response.ok) {
    err(`aalis-server ${command}: ${target.origin} answered ${response.status}: ${text.slice(0, 300)}`);
    return 1;
  }
  out(text);
  return 0;
}
