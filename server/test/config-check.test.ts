/**
 * `--check` in-process: what it masks (by name, in arguments, in URLs, and as a last net
 * by text), and what it refuses before printing anything.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, loadServerConfig } from '../src/config/server-config.js';
import { checkConfiguration } from '../src/config/check.js';
import { looksSecret, maskArgs, maskByName, maskUrl, redact } from '../src/util/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'aalis-config-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(content: unknown, env: Record<string, string> = {}) {
  const path = join(dir, 'aalis.config.json');
  writeFileSync(path, JSON.stringify(content));
  const out: string[] = [];
  const err: string[] = [];
  const code = await checkConfiguration(loadServerConfig({ configPath: path, env }), {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('masks', () => {
  test('names that say secret', () => {
    for (const name of [
      'apiKey',
      'OPENAI_API_KEY',
      'x-api-key',
      'Authorization',
      'GITHUB_TOKEN',
      'db_password',
      'CLIENT_SECRET',
    ])
      expect(looksSecret(name)).toBe(true);
    for (const name of ['REGION', 'X-Team', 'HOME', 'model']) expect(looksSecret(name)).toBe(false);
    expect(maskByName({ API_KEY: 'k', REGION: 'eu', EMPTY_TOKEN: '' })).toEqual({
      API_KEY: '***',
      REGION: 'eu',
      EMPTY_TOKEN: '',
    });
  });

  test('flags in arguments, URL passwords and query values', () => {
    expect(maskArgs(['--token', 'abc', '--verbose', '--api-key=def', '-p', 'x', 'plain'])).toEqual([
      '--token',
      '***',
      '--verbose',
      '--api-key=***',
      '-p',
      'x',
      'plain',
    ]);
    expect(maskUrl('https://u:pw@mcp.example.com/mcp?access_token=abc&team=1')).toBe(
      'https://u:***@mcp.example.com/mcp?access_token=***&team=1',
    );
    expect(maskUrl('https://mcp.example.com/mcp')).toBe('https://mcp.example.com/mcp');
    expect(maskUrl('not a url')).toBe('not a url');
  });

  test('by text: as written and as JSON writes it, short ones left', () => {
    expect(redact('key sk-"q"\\z and "sk-\\"q\\"\\\\z"', ['sk-"q"\\z'])).toBe('key *** and "***"');
    expect(redact('abc', ['abc'])).toBe('abc');
  });
});

describe('checkConfiguration', () => {
  test('no MCP server: exit 0; a long system prompt is shown by its start and its length', async () => {
    const prompt = `Answer. ${'x'.repeat(300)}`;
    const { code, out, err } = await check({ systemPrompt: prompt, token: 'tok-${T}' }, { T: 'secret-part' });
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toContain('MCP servers: none');
    expect(out).toContain(`"systemPrompt": "Answer. ${'x'.repeat(192)}… (${prompt.length} characters)"`);
    expect(out).toContain('"token": "***"');
    expect(out).not.toContain('secret-part');
  });

  test('a provider that cannot be built is refused as at start', async () => {
    await expect(check({ provider: { name: 'openai' } })).rejects.toThrow(
      new ConfigError('OPENAI_API_KEY is required when AALIS_PROVIDER is openai'),
    );
    await expect(
      check({ provider: { name: 'openai', apiKey: 'k', idleTimeoutMs: 5 } }, { AALIS_IDLE_TIMEOUT_MS: '5s' }),
    ).rejects.toThrow(/^AALIS_IDLE_TIMEOUT_MS must be a whole number/);
  });
});
