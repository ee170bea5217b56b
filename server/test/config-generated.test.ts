/**
 * What the settings' descriptions make is up to date in the repository: the published
 * JSON Schema and the README's table are exactly what `npm run schema -w @aalis/server`
 * writes, and `--help` lists every variable once.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { describe, expect, test } from 'vitest';
import { configSchema } from '../src/config/config-schema.js';
import { ENVIRONMENT } from '../src/config/environment-help.js';
import { CONFIG_SCHEMA_FILE } from '../src/config/file-schema.js';
import { TABLE_END, TABLE_START, settingsTable, tableSection } from '../src/config/readme-table.js';
import { SETTINGS } from '../src/config/settings/index.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const FIX = 'out of date: run `npm run schema -w @aalis/server`';

async function formatted(text: string, filepath: string): Promise<string> {
  return prettier.format(text, { ...(await prettier.resolveConfig(filepath)), filepath });
}

// Prettier's first run loads its parsers: slow on a busy machine.
describe('made from the settings', { timeout: 30_000 }, () => {
  test(`schema/aalis-config.schema.json is what they make (else ${FIX})`, async () => {
    const committed = readFileSync(CONFIG_SCHEMA_FILE, 'utf8');
    expect(JSON.parse(committed), FIX).toEqual(configSchema());
    expect(committed, FIX).toBe(await formatted(JSON.stringify(configSchema(), null, 2), CONFIG_SCHEMA_FILE));
  });

  test(`the README's settings table is what they make (else ${FIX})`, async () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain(TABLE_START);
    expect(readme).toContain(TABLE_END);
    const table = await formatted(settingsTable(), README);
    expect(tableSection(readme).text, FIX).toBe(`\n\n${table.trim()}\n\n`);
  });

  test('the table has a row for every setting, naming its key and its variables', () => {
    const table = settingsTable();
    for (const setting of SETTINGS) {
      if (setting.key) expect(table).toContain(`\`${setting.key}\``);
      for (const { name } of setting.variables) expect(table).toContain(`\`${name}\``);
    }
  });

  test('every variable is set by one setting, and --help lists each once', () => {
    const names = SETTINGS.flatMap((setting) => setting.variables.map((v) => v.name));
    expect(new Set(names).size).toBe(names.length);
    expect(ENVIRONMENT.map(([name]) => name)).toEqual(names);
    for (const [, , meaning] of ENVIRONMENT) expect(meaning).not.toBe('');
  });

  test('every key is in the file once, and every setting says what it is', () => {
    const keys = SETTINGS.flatMap((setting) => (setting.key ? [setting.key] : []));
    expect(new Set(keys).size).toBe(keys.length);
    for (const setting of SETTINGS) {
      expect(setting.key || setting.variables.length).toBeTruthy();
      expect(setting.description).toMatch(/\w.*\.$/);
    }
  });
});
