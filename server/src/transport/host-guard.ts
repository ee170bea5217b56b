/**
 * The Host check done on every request (PROTOCOL.md section 2).
 *
 * Why: a page on `evil.example` can make its own name resolve to this server's address
 * (DNS rebinding). The browser then treats the server as part of `evil.example`: its
 * requests carry `Host: evil.example` and `Origin: http://evil.example`, which look
 * "same-origin" to a check that trusts the Host. Answering only to the names the server
 * is really reached by (the configured public hosts, loopback names and the address it
 * listens on) takes that name away from the attacker, and makes "same-origin" mean what
 * it says. A browser cannot be made to send a Host it did not resolve, so loopback names
 * are safe to accept: a page that reaches them is a page on this machine.
 */
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A host the server answers to: a name or address, and a port when it must match too. */
export interface HostEntry {
  /** Lower case, without a trailing dot; IPv6 in brackets, as it appears in a Host. */
  hostname: string;
  /** When absent, any port matches. */
  port?: number;
}

// Underscores are not allowed in DNS host names, but are in the names container
// networks give services (`aalis_chat` in docker compose), which do reach servers.
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_PATTERN = new RegExp(`^(\\[[0-9a-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)\\.?(?::(\\d{1,5}))?$`);

/**
 * `name`, `name:port`, `1.2.3.4[:port]` or `[::1][:port]`, as a Host header or a
 * configured entry carries it; undefined when it is none of those (a scheme, a path,
 * user info, an empty or out-of-range port).
 */
export function parseHost(text: string): HostEntry | undefined {
  const match = HOST_PATTERN.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const hostname = match[1]!;
  if (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) !== 6) return undefined;
  if (/^[\d.]+$/.test(hostname) && isIP(hostname) !== 4) return undefined;
  if (match[2] === undefined) return { hostname };
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { hostname, port } : undefined;
}

/** localhost, 127.0.0.0/8 and [::1]: names only this machine's pages can reach. */
export function isLoopbackHostname(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return isIP(hostname) === 4 && hostname.startsWith('127.');
}

/** Wildcard listen addresses: they say nothing about the name the server is reached by. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * The listen address (`HOST`) as a host entry, when it names one specific non-loopback
 * address or name: a server listening on 192.168.1.20 is reached as 192.168.1.20.
 */
export function listenHostEntry(listenHost: string): string | undefined {
  const host = listenHost.trim().toLowerCase();
  if (WILDCARDS.has(host)) return undefined;
  const asHost = isIP(host) === 6 ? `[${host}]` : host;
  const parsed = parseHost(asHost);
  if (!parsed || parsed.port !== undefined || isLoopbackHostname(parsed.hostname)) return undefined;
  return parsed.hostname;
}

export type HostCheck = (hostHeader: string | undefined) => boolean;

/**
 * A check for the `Host` of a request. `publicHosts` entries are `name` (any port) or
 * `name:port`; `*` accepts any well-formed Host (for a proxy in front that checks it).
 * Loopback names are always accepted, on any port. A request without Host (HTTP/1.0)
 * or with one that is not a host name is refused.
 */
export function createHostCheck(publicHosts: readonly string[]): HostCheck {
  const anyHost = publicHosts.includes('*');
  const entries: HostEntry[] = [];
  for (const text of publicHosts) {
    if (text === '*') continue;
    const entry = parseHost(text);
    if (!entry) throw new Error(`publicHosts: "${text}" is not a host like chat.example.com`);
    entries.push(entry);
  }
  return (hostHeader) => {
    if (hostHeader === undefined) return false;
    const host = parseHost(hostHeader);
    if (!host) return false;
    if (anyHost || isLoopbackHostname(host.hostname)) return true;
    return entries.some(
      (entry) => entry.hostname === host.hostname && (entry.port === undefined || entry.port === host.port),
    );
  };
}

/** What a refused request reads: short, and naming the setting that fixes it. */
export const HOST_REFUSED_TEXT =
  'This server does not answer to this host name. If it is the name the server is published under, ' +
  'add it to AALIS_PUBLIC_HOSTS (the publicHosts option).\n';

/** The hosts a server answers to, for a start-up line: "localhost, 127.0.0.1, [::1], chat.example.com". */
export function describeHosts(publicHosts: readonly string[]): string {
  if (publicHosts.includes('*')) return 'any host (AALIS_PUBLIC_HOSTS=*)';
  return ['localhost', '127.0.0.1', '[::1]', ...publicHosts].join(', ');
}

/**
 * A route hook answering 403 to a request whose Host the server does not answer to.
 * One info line per refusal: anyone can send these, so no stack and nothing louder.
 */
export function hostGuardHook(check: HostCheck) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const host = request.headers.host;
    if (check(host)) return;
    request.log.info({ host: host?.slice(0, 100) ?? null }, 'request refused: host not served');
    await reply.code(403).type('text/plain; charset=utf-8').send(HOST_REFUSED_TEXT);
  };
}
