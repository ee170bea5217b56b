import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeClientFrame, decodeServerFrame } from '../src/index.js';
import { serverFrameChecks } from '../src/generated/server-frame-checks.js';
import { SUPPORTED_KEYWORDS, type JsonSchema } from '../src/json-check.js';
import { buildJsonSchema, serverFrameChecksModule } from '../src/json-schema.js';
import { clientFrame, mutated, serverFrame } from './arbitraries.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('the published JSON Schema', () => {
  test('the checked-in files are what the valibot schemas generate (run `npm run schema -w @aalis/protocol`)', () => {
    expect(JSON.parse(read('schema/aalis-protocol.schema.json'))).toEqual(buildJsonSchema());
    expect(read('src/generated/server-frame-checks.ts')).toBe(serverFrameChecksModule());
  });

  const ajv = new Ajv2020({ strict: true, allErrors: false });
  const validate = ajv.compile(JSON.parse(read('schema/aalis-protocol.schema.json')));

  test('a standard validator agrees with the decoders on valid frames and on frames with one thing wrong', () => {
    fc.assert(
      fc.property(fc.oneof(serverFrame, mutated(serverFrame)), (frame) => {
        expect(validate(frame)).toBe(decodeServerFrame(JSON.stringify(frame)).ok);
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(fc.oneof(clientFrame, mutated(clientFrame)), (frame) => {
        expect(validate(frame)).toBe(decodeClientFrame(JSON.stringify(frame)).ok);
      }),
      { numRuns: 2_000 },
    );
  });

  test('the browser checker understands every keyword of the schemas it is given', () => {
    const used = new Set<string>();
    const walk = (schema: JsonSchema): void => {
      Object.keys(schema).forEach((keyword) => used.add(keyword));
      Object.values(schema.properties ?? {}).forEach(walk);
      schema.oneOf?.forEach(walk);
      if (schema.items) walk(schema.items);
    };
    [...Object.values(serverFrameChecks.frames), ...Object.values(serverFrameChecks.defs)].forEach(walk);
    expect([...used].filter((keyword) => !SUPPORTED_KEYWORDS.includes(keyword))).toEqual([]);
    expect(used).toContain('minimum');
  });
});
