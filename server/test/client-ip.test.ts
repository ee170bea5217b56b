/** The client IP of a request: the socket's peer, or X-Forwarded-For from a trusted proxy only. */
import { describe, expect, test } from 'vitest';
import {
  createClientIp,
  forwardedAddress,
  normalizeAddress,
  parseTrustProxyEntry,
} from '../src/transport/client-ip.js';

describe('client IP', () => {
  test('without trusted proxies it is the socket address, whatever the header says', () => {
    const ipOf = createClientIp();
    expect(ipOf('10.0.0.9', '1.2.3.4')).toBe('10.0.0.9');
    expect(ipOf('::ffff:127.0.0.1', undefined)).toBe('127.0.0.1');
    expect(ipOf(undefined, '1.2.3.4')).toBeUndefined();
  });

  test('an untrusted peer cannot name another client', () => {
    expect(createClientIp(['10.0.0.1'])('10.0.0.9', '1.2.3.4')).toBe('10.0.0.9');
  });

  test('from a trusted proxy: the right-most address not itself trusted', () => {
    const ipOf = createClientIp(['loopback', '10.0.0.1']);
    expect(ipOf('127.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
    // A client-written left part is skipped: the proxy appended the real peer.
    expect(ipOf('127.0.0.1', '6.6.6.6, 203.0.113.7')).toBe('203.0.113.7');
    // Two trusted hops.
    expect(ipOf('::1', '6.6.6.6, 203.0.113.7, 10.0.0.1')).toBe('203.0.113.7');
    expect(ipOf('::ffff:127.0.0.2', ['6.6.6.6', '203.0.113.7'])).toBe('203.0.113.7');
    // Every hop trusted: the left-most.
    expect(ipOf('127.0.0.1', '10.0.0.1')).toBe('10.0.0.1');
    // No header: the proxy itself.
    expect(ipOf('127.0.0.1', undefined)).toBe('127.0.0.1');
  });

  test('an entry that is not an address ends the walk at the hop before it', () => {
    const ipOf = createClientIp(['loopback']);
    expect(ipOf('127.0.0.1', '203.0.113.7, unknown')).toBe('127.0.0.1');
    expect(ipOf('127.0.0.1', 'junk, 203.0.113.7')).toBe('203.0.113.7');
    expect(ipOf('127.0.0.1', '')).toBe('127.0.0.1');
  });

  test('addresses with ports and brackets, IPv6 in lower case', () => {
    expect(forwardedAddress('203.0.113.7:5678')).toBe('203.0.113.7');
    expect(forwardedAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(forwardedAddress(' 2001:db8::1 ')).toBe('2001:db8::1');
    expect(forwardedAddress('example.com')).toBeUndefined();
    expect(normalizeAddress('::FFFF:10.1.2.3')).toBe('10.1.2.3');
  });

  test('trust entries: IP addresses and loopback', () => {
    expect(parseTrustProxyEntry('loopback')).toBe('loopback');
    expect(parseTrustProxyEntry(' 10.0.0.5 ')).toBe('10.0.0.5');
    expect(parseTrustProxyEntry('::1')).toBe('::1');
    expect(parseTrustProxyEntry('10.0.0.0/8')).toBeUndefined();
    expect(parseTrustProxyEntry('proxy.local')).toBeUndefined();
    expect(() => createClientIp(['nope'])).toThrow(/nope/);
    const loopbackOnly = createClientIp(['loopback']);
    expect(loopbackOnly('127.9.9.9', '203.0.113.7')).toBe('203.0.113.7');
    expect(loopbackOnly('10.0.0.1', '203.0.113.7')).toBe('10.0.0.1');
  });
});
