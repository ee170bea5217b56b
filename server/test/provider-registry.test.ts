/**
 * The registry is the one list of providers, and each provider is one folder: every folder
 * of src/providers (but core) is registered, each has its index.ts and README.md, every
 * variable it reads is in its README and in the server's, and the factory makes the
 * provider the entry names.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROVIDERS } from '../src/providers/registry.js';
import { providerSettings } from '../src/providers/core/settings.js';

const providersDir = join(import.meta.dirname, '../src/providers');
const serverReadme = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');

describe('the provider registry', () => {
  test('names each folder of src/providers once, and nothing else', () => {
    const folders = readdirSync(providersDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'core')
      .map((entry) => entry.name);
    const names = PROVIDERS.map((provider) => provider.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(folders.sort());
  });

  test.each(PROVIDERS.map((provider) => [provider.name, provider] as const))(
    '%s: a folder with its index and README, its settings documented here and in the server README',
    (name, provider) => {
      expect(existsSync(join(providersDir, name, 'index.ts'))).toBe(true);
      const readme = readFileSync(join(providersDir, name, 'README.md'), 'utf8');
      expect(readme).toContain(`\`${provider.defaultModel}\``);
      expect(serverReadme).toContain(`| \`${name}\``);
      for (const { variable } of provider.settings) {
        expect(readme, `${name}/README.md names ${variable}`).toContain(`\`${variable}\``);
        expect(serverReadme, `README.md names ${variable}`).toContain(`\`${variable}\``);
      }
      if (provider.selectedBy) {
        expect(provider.settings.map((setting) => setting.variable)).toContain(provider.selectedBy);
      }
    },
  );

  test.each(PROVIDERS.map((provider) => [provider.name, provider] as const))(
    '%s: the factory makes the provider of that name',
    async (name, provider) => {
      const env = Object.fromEntries(
        provider.settings.map(({ variable, role }) => [variable, role ? 'http://127.0.0.1:9' : '']),
      );
      const created = provider.create(providerSettings(name, env, provider.defaultModel));
      try {
        expect(created.provider.name).toBe(name);
      } finally {
        await created.close?.();
      }
    },
  );
});
