// Regenerates the files derived from the valibot schemas (npm run schema):
// schema/aalis-protocol.schema.json, the published JSON Schema, and
// src/generated/server-frame-checks.ts, the slice of it that browsers check frames with.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildJsonSchema, serverFrameChecksModule } from '../dist/json-schema.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const write = (path, text) => {
  const out = join(root, path);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`wrote ${path}`);
};
write('schema/aalis-protocol.schema.json', JSON.stringify(buildJsonSchema(), null, 2) + '\n');
write('src/generated/server-frame-checks.ts', serverFrameChecksModule());
