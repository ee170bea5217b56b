/**
 * One spelling per client address, and one key per household. Every per-address count
 * (sockets, sends, turns, tokens, uploads, failed tokens) is keyed by `addressKey`, so
 * that neither a different spelling of the same address nor the rest of a visitor's IPv6
 * block gets a fresh allowance:
 *
 *   canonicalAddress('2001:DB8:0:0:0:0:0:1') === '2001:db8::1'      (RFC 5952)
 *   canonicalAddress('::ffff:c000:24d')       === '192.0.2.77'       (IPv4-mapped is IPv4)
 *   addressKey('2001:db8::5', 64)             === '2001:db8::/64'    (any home router hands out a /64)
 *   addressKey('192.0.2.77', 64)              === '192.0.2.77'
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The default of `AALIS_IPV6_PREFIX`: the block one subscriber line gets. */
export const DEFAULT_IPV6_PREFIX = 64;

/** `address` in its one canonical spelling; undefined when it is not an IP address. */
export function canonicalAddress(address: string): string | undefined {
  const text = address.trim().replace(/%.*$/, '');
  if (isIPv4(text)) return text.split('.').map(Number).join('.');
  if (!isIPv6(text)) return undefined;
  const words = ipv6Words(text);
  return mappedIPv4(words) ?? formatIPv6(words);
}

/**
 * The key counts are kept under: an IPv4 address itself, an IPv6 address's first
 * `ipv6Prefix` bits (1 to 128) as `<network>/<prefix>`. `address` must be canonical.
 */
export function addressKey(address: string, ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  if (!address.includes(':') || ipv6Prefix >= 128) return address;
  const words = ipv6Words(address);
  for (let index = 0; index < 8; index++) {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - index * 16));
    words[index] = bits === 0 ? 0 : words[index]! & ((0xffff << (16 - bits)) & 0xffff);
  }
  return `${formatIPv6(words)}/${ipv6Prefix}`;
}

/** The eight 16-bit words of a valid IPv6 address (a dotted IPv4 tail included). */
function ipv6Words(text: string): number[] {
  let body = text.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    body = `${body.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = body.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const front = parse(head);
  const back = parse(rest);
  const zeros = rest === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}

/** `::ffff:a.b.c.d` (an IPv4 peer of a dual-stack socket) as `a.b.c.d`. */
function mappedIPv4(words: number[]): string | undefined {
  if (words.slice(0, 5).some((word) => word !== 0) || words[5] !== 0xffff) return undefined;
  return [words[6]! >> 8, words[6]! & 255, words[7]! >> 8, words[7]! & 255].join('.');
}

/** RFC 5952: lower case, no leading zeros, the longest run of two or more zero words as `::` (the first on a tie). */
function formatIPv6(words: number[]): string {
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8;) {
    if (words[start] !== 0) {
      start++;
      continue;
    }
    let end = start;
    while (end < 8 && words[end] === 0) end++;
    if (end - start > best.length) best = { start, length: end - start };
    start = end;
  }
  const hex = words.map((word) => word.toString(16));
  if (best.start < 0) return hex.join(':');
  const before = hex.slice(0, best.start).join(':');
  const after = hex.slice(best.start + best.length).join(':');
  return `${before}::${after}`;
}
