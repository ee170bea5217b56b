// Writes what the settings' descriptions (src/config/settings/) make: the configuration
// file's JSON Schema (schema/aalis-config.schema.json) and the README's table of every
// setting. Run by `npm run schema -w @aalis/server`, after the build it reads from;
// test/config-generated.test.ts fails when either is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { configSchema } from '../dist/config/config-schema.js';
import { settingsTable, withSettingsTable } from '../dist/config/readme-table.js';

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** `text` as Prettier writes it in `path` (its language told by the name). */
async function format(text, path) {
  const file = at(path);
  return prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });
}

async function write(path, formatted) {
  const file = at(path);
  const before = readFileSync(file, 'utf8');
  if (before === formatted) return console.log(`${path}: up to date`);
  writeFileSync(file, formatted);
  console.log(`${path}: written`);
}

const schema = 'schema/aalis-config.schema.json';
await write(schema, await format(JSON.stringify(configSchema(), null, 2), schema));
// Only the table is formatted (as a markdown file of its own): the rest of the README is left as it is.
const table = await format(settingsTable(), 'README.md');
await write('README.md', withSettingsTable(readFileSync(at('README.md'), 'utf8'), table));
