/** The client IP of a request: the socket's peer, or X-Forwarded-For from a trusted proxy only. */
import { describe, expect, test } from 'vitest';
import {
  createClientIp,
  forwardedAddress,
  normalizeAddress,
  parseTrustProxyEntry,
} from '../src/transport/client-ip.js';
import { addressKey, canonicalAddress } from '../src/transport/address-form.js';

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

describe('one spelling per address, one key per /64', () => {
  test.each([
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8::0001', '2001:db8::1'],
    ['::ffff:c000:24d', '192.0.2.77'],
    ['::FFFF:192.0.2.77', '192.0.2.77'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::', '::'],
    ['1::', '1::'],
  ])('%s is %s', (given, canonical) => {
    expect(canonicalAddress(given)).toBe(canonical);
  });

  test('not an address is undefined', () => {
    for (const text of ['', 'localhost', '1.2.3', '2001:db8:::1', '::ffff:1.2.3.4.5'])
      expect(canonicalAddress(text)).toBeUndefined();
  });

  test('an IPv6 address counts by its prefix, IPv4 by itself', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2ff:3:4:5:6', 56)).toBe('2001:db8:1:200::/56');
    expect(addressKey('2001:db8::6', 128)).toBe('2001:db8::6');
    expect(addressKey('2001:db8::6', 1)).toBe('::/1');
    expect(addressKey('192.0.2.77')).toBe('192.0.2.77');
  });
});
