import { matchesOriginEntry } from './origin-pattern.js';

/**
 * The Origin check done before a WebSocket upgrade (PROTOCOL.md section 2): same-origin
 * is always allowed, configured origins are allowed exactly or by a subdomain wildcard
 * (origin-pattern.ts), `*` allows any, and a request without Origin is not from a browser
 * and passes.
 *
 * Same-origin means the Origin's host and port equal the request's `Host`. That is only
 * safe because the host guard (host-guard.ts) has refused every Host that is not one of
 * the server's own names before this runs: without it, a DNS-rebinding page sends
 * `Host: evil.example` with `Origin: http://evil.example` and looks same-origin.
 */
export function isOriginAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true;
  if (allowed.includes('*')) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (host !== undefined && parsed.host === host.toLowerCase()) return true;
  return allowed.some((entry) => matchesOriginEntry(entry, parsed));
}
