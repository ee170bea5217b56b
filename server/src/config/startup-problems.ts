/**
 * Start-up failures a site owner can fix, each said in one line that names the cause
 * and what to change (the CLI and `npm start` print it and exit 2, instead of a stack).
 */
import type { ServerConfig } from './server-config.js';

/** The line for a failure to listen, or undefined when it is not one we can explain. */
export function listenProblem(
  error: unknown,
  { host, port }: Pick<ServerConfig, 'host' | 'port'>,
): string | undefined {
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (another aalis-server, or npm start?): set PORT to a free port`;
    case 'EACCES':
      return `no permission to listen on port ${port}: set PORT to a port above 1023, or let a proxy listen on ${port}`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine: set HOST to 127.0.0.1, 0.0.0.0 or one of its addresses`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is not an address or a name that resolves: set HOST to 127.0.0.1 or 0.0.0.0`;
    default:
      return undefined;
  }
}

/** The line for a history directory that cannot be used. */
export function dataDirProblem(error: unknown, dataDir: string): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const why = [code, message?.split('\n')[0]].filter(Boolean).join(': ') || String(error);
  return `AALIS_DATA_DIR ${dataDir} cannot hold the history (${why}): set it to a writable directory, or to :memory:`;
}
