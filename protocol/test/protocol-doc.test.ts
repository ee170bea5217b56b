/**
 * PROTOCOL.md, the contract in words, and this package, the contract in code, say the
 * same: every frame, field, error code and close code of the schemas is in the document.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { CloseCode, ErrorCode, clientFrameSchemas, serverFrameSchemas } from '../src/index.js';

const doc = readFileSync(new URL('../PROTOCOL.md', import.meta.url), 'utf8');
/** The table row that documents a frame type, in the section of its direction. */
function row(section: string, type: string): string {
  const start = doc.indexOf(section);
  const line = doc
    .slice(start)
    .split('\n')
    .find((l) => l.startsWith(`| \`${type}\``));
  return line ?? '';
}

test.each([
  ['### Client -> server', clientFrameSchemas],
  ['### Server -> client', serverFrameSchemas],
] as const)('every frame of "%s" is documented with every field', (section, schemas) => {
  for (const [type, schema] of Object.entries(schemas)) {
    const documented = row(section, type);
    expect(documented, `${type} has a row`).not.toBe('');
    for (const field of Object.keys(schema.entries)) {
      if (field === 'type') continue;
      expect(documented, `${type}.${field}`).toContain(`\`${field}`);
    }
  }
});

test('every error code and close code is documented', () => {
  for (const code of Object.values(ErrorCode)) expect(doc).toContain(`| \`${code}\``);
  for (const code of Object.values(CloseCode)) expect(doc).toContain(`| ${code} `);
});
