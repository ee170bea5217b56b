/**
 * An allowed-origin entry: an exact origin (`https://shop.example.com`), or a subdomain
 * wildcard (`https://*.example.com`), which allows every subdomain of `example.com`, at any
 * depth, with that scheme and port, and not `example.com` itself (list it too when it
 * embeds the chat). No other use of `*` is accepted: `https://shop.*.com` would be a
 * guess at what the owner meant, so the configuration refuses it.
 */

/** `scheme://*.domain[:port]` */
const WILDCARD = /^(https?):\/\/\*\.([^/*:]+)(?::(\d+))?$/i;

/** The entry normalised (lower case, default port dropped), or undefined when it is not one. */
export function parseOriginEntry(entry: string): string | undefined {
  const wildcard = WILDCARD.exec(entry);
  if (wildcard) {
    // Validated as the origin of one of its subdomains would be.
    const probe = safeUrl(`${wildcard[1]}://x.${wildcard[2]}${wildcard[3] ? `:${wildcard[3]}` : ''}`);
    if (!probe || probe.origin === 'null') return undefined;
    return probe.origin.replace('://x.', '://*.');
  }
  if (entry.includes('*')) return undefined;
  const url = safeUrl(entry);
  if (!url || url.origin === 'null' || url.pathname !== '/' || url.search || url.hash || entry.endsWith('/'))
    return undefined;
  return url.origin;
}

/** Whether `origin` is allowed by a normalised entry. */
export function matchesOriginEntry(entry: string, origin: URL): boolean {
  if (!entry.includes('://*.')) return safeUrl(entry)?.origin === origin.origin;
  const base = safeUrl(entry.replace('://*.', '://x.'));
  if (!base) return false;
  const domain = base.hostname.slice(2);
  return (
    origin.protocol === base.protocol && origin.port === base.port && origin.hostname.endsWith(`.${domain}`)
  );
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
