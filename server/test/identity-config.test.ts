/**
 * The identity settings: the variables, the file's `auth` block under them, each mistake
 * one line naming where it is, `--check` masking the secret; and the plain `ws` adapter
 * getting identity from the same options as the plugin.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { ConfigError, loadConfig, loadServerConfig } from '../src/config/server-config.js';
import { checkConfiguration } from '../src/config/check.js';
import { DemoProvider } from '../src/providers/demo/index.js';
import { attachAalisChat } from '../src/adapters/use-ws.js';

const SECRET = 'x'.repeat(32);
const dir = mkdtempSync(join(tmpdir(), 'aalis-identity-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = (env: Record<string, string>) => loadConfig(env);
const mistake = (env: Record<string, string>) => {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error('no mistake');
};

function writeConfig(content: unknown): string {
  const path = join(dir, `aalis-${Math.random().toString(36).slice(2)}.config.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('the variables', () => {
  test('none set: no identity, AALIS_TOKEN as before', () => {
    expect(load({}).auth).toBeUndefined();
    expect(load({ AALIS_TOKEN: 't' }).token).toBe('t');
  });

  test('a secret alone: optional', () => {
    expect(load({ AALIS_AUTH_SECRET: SECRET }).auth).toEqual({ mode: 'optional', secret: SECRET });
  });

  test('a JWKS with audience, issuer and required', () => {
    expect(
      load({
        AALIS_AUTH: 'required',
        AALIS_AUTH_JWKS_URL: 'https://shop.example.com/.well-known/jwks.json',
        AALIS_AUTH_AUDIENCE: 'aalis',
        AALIS_AUTH_ISSUER: 'https://shop.example.com',
      }).auth,
    ).toEqual({
      mode: 'required',
      jwksUrl: 'https://shop.example.com/.well-known/jwks.json',
      audience: 'aalis',
      issuer: 'https://shop.example.com',
    });
    for (const url of ['http://127.0.0.1:8080/jwks', 'http://localhost/jwks', 'http://[::1]:9/jwks'])
      expect(load({ AALIS_AUTH_JWKS_URL: url }).auth?.jwksUrl).toBe(url);
  });

  test('mistakes are one line naming the variable', () => {
    expect(mistake({ AALIS_AUTH: 'required' })).toMatch(
      /^AALIS_AUTH=required needs AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL$/,
    );
    expect(mistake({ AALIS_AUTH: 'maybe', AALIS_AUTH_SECRET: SECRET })).toMatch(/^AALIS_AUTH must be one of/);
    expect(mistake({ AALIS_AUTH_SECRET: 'short' })).toMatch(/^AALIS_AUTH_SECRET must be at least 32 bytes/);
    expect(mistake({ AALIS_AUTH_JWKS_URL: 'http://keys.example.com/jwks' })).toMatch(
      /^AALIS_AUTH_JWKS_URL must be an https:\/\/ URL/,
    );
    expect(mistake({ AALIS_AUTH_JWKS_URL: 'not a url' })).toMatch(/^AALIS_AUTH_JWKS_URL/);
    expect(mistake({ AALIS_AUTH_SECRET: SECRET, AALIS_AUTH_JWKS_URL: 'https://a.example/jwks' })).toMatch(
      /not both/,
    );
    expect(mistake({ AALIS_AUTH_AUDIENCE: 'aalis' })).toMatch(/^AALIS_AUTH_AUDIENCE needs/);
    expect(mistake({ AALIS_AUTH_SECRET: SECRET, AALIS_TOKEN: 't' })).toMatch(/^AALIS_TOKEN cannot be used/);
  });
});

describe('the file', () => {
  test('its auth block, with the environment over it', () => {
    const path = writeConfig({ auth: { mode: 'required', secret: '${SITE_SECRET}', audience: 'aalis' } });
    const loaded = loadServerConfig({ configPath: path, env: { SITE_SECRET: SECRET } });
    expect(loaded.config.auth).toEqual({ mode: 'required', secret: SECRET, audience: 'aalis' });
    const over = loadServerConfig({ configPath: path, env: { SITE_SECRET: SECRET, AALIS_AUTH: 'optional' } });
    expect(over.config.auth?.mode).toBe('optional');
    expect(over.overridden).toContain('AALIS_AUTH');
  });

  test('a mistake names the file and the key', () => {
    const path = writeConfig({ auth: { secret: 'short' } });
    expect(() => loadServerConfig({ configPath: path, env: {} })).toThrow(
      `${path}: auth.secret must be at least 32 bytes`,
    );
    const unknown = writeConfig({ auth: { algorithm: 'HS256' } });
    expect(() => loadServerConfig({ configPath: unknown, env: {} })).toThrow(/auth: unknown key "algorithm"/);
    const mode = writeConfig({ auth: { mode: 'sometimes', secret: SECRET } });
    expect(() => loadServerConfig({ configPath: mode, env: {} })).toThrow(
      /auth\.mode: must be one of required, optional/,
    );
  });

  test('--check masks the secret', async () => {
    const path = writeConfig({ auth: { secret: SECRET, issuer: 'https://shop.example.com' } });
    const out: string[] = [];
    const code = await checkConfiguration(loadServerConfig({ configPath: path, env: {} }), {
      out: (line) => out.push(line),
      err: () => {},
    });
    expect(code).toBe(0);
    const text = out.join('\n');
    expect(text).not.toContain(SECRET);
    expect(text).toContain('"secret": "***"');
    expect(text).toContain('"issuer": "https://shop.example.com"');
  });
});

test('the plain ws adapter takes identity from the same options as the plugin', async () => {
  const server = createServer();
  const attached = attachAalisChat(server, {
    provider: new DemoProvider(),
    model: 'demo',
    auth: { mode: 'required', secret: SECRET },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
  try {
    const closes: number[] = [];
    for (let i = 0; i < 2; i++) {
      const socket = new WebSocket(url);
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'hello', protocol: 1 }));
      closes.push(await new Promise<number>((resolve) => socket.once('close', resolve)));
    }
    expect(closes).toEqual([4401, 4401]);
  } finally {
    await attached.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
