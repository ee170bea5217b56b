import { describe, expect, test } from 'vitest';
import { loadConfig } from '../src/config/server-config.js';
import { matchesOriginEntry, parseOriginEntry } from '../src/transport/origin-pattern.js';

describe('allowed-origin entries', () => {
  test('exact origins and subdomain wildcards are normalised', () => {
    expect(parseOriginEntry('https://Shop.Example.com')).toBe('https://shop.example.com');
    expect(parseOriginEntry('https://*.Example.com')).toBe('https://*.example.com');
    expect(parseOriginEntry('https://*.example.com:443')).toBe('https://*.example.com');
    expect(parseOriginEntry('http://*.example.com:8080')).toBe('http://*.example.com:8080');
  });

  test.each([
    'https://shop.*.com',
    '*.example.com',
    'https://*',
    'https://*example.com',
    'https://*.example.com/path',
    'https://shop.example.com/',
    'ftp://*.example.com',
  ])('%s is refused', (entry) => expect(parseOriginEntry(entry)).toBeUndefined());

  test('a wildcard matches subdomains at any depth, never the domain itself or a look-alike', () => {
    const entry = 'https://*.example.com';
    const matches = (origin: string) => matchesOriginEntry(entry, new URL(origin));
    expect(matches('https://a.example.com')).toBe(true);
    expect(matches('https://a.b.example.com')).toBe(true);
    expect(matches('https://example.com')).toBe(false);
    expect(matches('https://badexample.com')).toBe(false);
    expect(matches('http://a.example.com')).toBe(false);
  });

  test('a wildcard the server cannot honour stops the start with one line', () => {
    expect(() => loadConfig({ AALIS_ALLOWED_ORIGINS: 'https://shop.*.com' })).toThrow(
      'AALIS_ALLOWED_ORIGINS: "https://shop.*.com" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains',
    );
    expect(loadConfig({ AALIS_ALLOWED_ORIGINS: 'https://*.example.com' }).allowedOrigins).toEqual([
      'https://*.example.com',
    ]);
  });
});
