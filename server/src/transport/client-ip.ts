/**
 * The client's IP address of a request: the socket's peer, or, when that peer is a proxy
 * the operator trusts (`AALIS_TRUST_PROXY`), the right-most `X-Forwarded-For` address
 * that is not itself trusted. A header from anyone else is ignored: a client writes what
 * it likes there. Counts per IP (ip-limits.ts, the failed-token throttle) use this.
 *
 *   const clientIpOf = createClientIp(['loopback', '10.0.0.5']);
 *   clientIpOf(request.socket.remoteAddress, request.headers['x-forwarded-for']);
 */
import { isIP } from 'node:net';
import { canonicalAddress } from './address-form.js';

/** `AALIS_TRUST_PROXY`'s shorthand for 127.0.0.0/8 and ::1. */
export const LOOPBACK = 'loopback';

/**
 * An address in its one spelling (address-form.ts): `::ffff:127.0.0.1` (an IPv4 peer on a
 * dual-stack socket) as `127.0.0.1`, IPv6 zero-compressed in lower case. What is not an
 * address is kept as it is, trimmed and in lower case.
 */
export function normalizeAddress(address: string): string {
  return canonicalAddress(address) ?? address.trim().toLowerCase();
}

const isLoopback = (address: string): boolean => address === '::1' || /^127\./.test(address);

/**
 * One `AALIS_TRUST_PROXY` entry as the server keeps it (`loopback`, or a normalized IP
 * address), or undefined when it is neither.
 */
export function parseTrustProxyEntry(entry: string): string | undefined {
  const text = entry.trim();
  if (text.toLowerCase() === LOOPBACK) return LOOPBACK;
  return isIP(text) ? normalizeAddress(text) : undefined;
}

/**
 * One `X-Forwarded-For` entry's address: a bare IPv4 or IPv6 address, or one with a
 * port as some proxies write it (`1.2.3.4:5678`, `[2001:db8::1]:443`); undefined otherwise.
 */
export function forwardedAddress(entry: string): string | undefined {
  const text = entry.trim();
  const withPort = /^\[([^\]]+)\](?::\d+)?$/.exec(text) ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text);
  const address = withPort ? withPort[1]! : text;
  return isIP(address) ? normalizeAddress(address) : undefined;
}

/** Whether `address` (normalized) is one of the trusted proxies. */
export function trustCheck(trustProxy: readonly string[]): (address: string) => boolean {
  const entries = trustProxy.map((entry) => {
    const parsed = parseTrustProxyEntry(entry);
    if (parsed === undefined) throw new TypeError(`trustProxy: "${entry}" is not an IP address or loopback`);
    return parsed;
  });
  const loopback = entries.includes(LOOPBACK);
  const addresses = new Set(entries.filter((entry) => entry !== LOOPBACK));
  return (address) => addresses.has(address) || (loopback && isLoopback(address));
}

export type ClientIpOf = (
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
) => string | undefined;

/**
 * The client IP from the socket's address and the `X-Forwarded-For` header(s). The header
 * is read from the right (each proxy appends the address it was reached from), for as
 * long as the hop that wrote the entry is trusted; an entry that is not an address ends
 * the walk at the hop before it. Without trusted proxies it is the socket's address.
 */
export function createClientIp(trustProxy: readonly string[] = []): ClientIpOf {
  const trusted = trustCheck(trustProxy);
  const none = trustProxy.length === 0;
  return (remoteAddress, forwardedFor) => {
    if (!remoteAddress) return undefined;
    let client = normalizeAddress(remoteAddress);
    if (none || forwardedFor === undefined || !trusted(client)) return client;
    const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    for (let index = entries.length - 1; index >= 0 && trusted(client); index--) {
      const address = forwardedAddress(entries[index]!);
      if (address === undefined) break;
      client = address;
    }
    return client;
  };
}
