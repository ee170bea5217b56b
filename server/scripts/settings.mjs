// Writes what the settings' descriptions (src/config/settings/) make: the configuration
// file's JSON Schema (schema/aalis-config.schema.json) and the README's table of every
// setting. Run by `npm run schema -w @aalis/server`, after the build it reads from;
// test/config-generated.test.ts fails when either is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { configSchema } from '../dist/config/config-schema.js';
import { withSettingsTable } from '../dist/config/readme-table.js';

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

async function write(path, text) {
  const file = at(path);
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  const formatted = await prettier.format(text, options);
  const before = readFileSync(file, 'utf8');
  if (before === formatted) return console.log(`${path}: up to date`);
  writeFileSync(file, formatted);
  console.log(`${path}: written`);
}

await write('schema/aalis-config.schema.json', JSON.stringify(configSchema(), null, 2));
await write('README.md', withSettingsTable(readFileSync(at('README.md'), 'utf8')));
