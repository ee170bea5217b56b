import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeClientFrame, decodeServerFrame } from '../src/index.js';
import { serverFrameChecks } from '../src/generated/server-frame-checks.js';
import { SUPPORTED_KEYWORDS, checkJson, type JsonSchema } from '../src/json-check.js';
import { buildJsonSchema, serverFrameChecksModule } from '../src/json-schema.js';
import { clientFrame, mutated, serverFrame } from './arbitraries.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('the published JSON Schema', () => {
  test('the checked-in files are what the valibot schemas generate (run `npm run schema -w @aalis/protocol`)', () => {
    expect(JSON.parse(read('schema/aalis-protocol.schema.json'))).toEqual(buildJsonSchema());
    expect(read('src/generated/server-frame-checks.ts')).toBe(serverFrameChecksModule());
  });

  const ajv = new Ajv2020({ strict: true, allErrors: false });
  const published = JSON.parse(read('schema/aalis-protocol.schema.json')) as { $id: string };
  const validate = ajv.compile(published);
  // Each direction by its own definition: some frames are valid both ways (a server's
  // `feedback` is a client's too, with a field more), so the root takes either.
  const validateServer = ajv.compile({ $ref: `${published.$id}#/$defs/ServerFrame` });
  const validateClient = ajv.compile({ $ref: `${published.$id}#/$defs/ClientFrame` });

  test('a standard validator agrees with the decoders on valid frames and on frames with one thing wrong', () => {
    fc.assert(
      fc.property(fc.oneof(serverFrame, mutated(serverFrame)), (frame) => {
        const ok = decodeServerFrame(JSON.stringify(frame)).ok;
        expect(validateServer(frame)).toBe(ok);
        if (ok) expect(validate(frame)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
    fc.assert(
      fc.property(fc.oneof(clientFrame, mutated(clientFrame)), (frame) => {
        const ok = decodeClientFrame(JSON.stringify(frame)).ok;
        expect(validateClient(frame)).toBe(ok);
        if (ok) expect(validate(frame)).toBe(true);
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
      if (schema.additionalProperties) walk(schema.additionalProperties);
    };
    [...Object.values(serverFrameChecks.frames), ...Object.values(serverFrameChecks.defs)].forEach(walk);
    expect([...used].filter((keyword) => !SUPPORTED_KEYWORDS.includes(keyword))).toEqual([]);
    expect(used).toContain('minimum');
    expect(used).toContain('additionalProperties');
  });
});

describe('the browser checker', () => {
  // A record (keys not known in advance) next to named fields, as JSON Schema means them.
  const schema: JsonSchema = {
    properties: { count: { type: 'integer', minimum: 0 } },
    additionalProperties: { type: 'string' },
  };

  test('checks the fields `properties` does not name against `additionalProperties`', () => {
    expect(checkJson(schema, {}, { count: 2, any: 'x', 'other name': '' })).toBeUndefined();
    expect(checkJson(schema, {}, { count: 2, any: 3 })).toEqual({
      path: 'any',
      reason: 'expected string, received integer',
    });
  });

  test('checks the named fields by their own schema, not the record', () => {
    expect(checkJson(schema, {}, { count: -1 })).toEqual({
      path: 'count',
      reason: 'expected >=0, received -1',
    });
  });

  test('a record is an object, not an array', () => {
    const record: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
    expect(checkJson(record, {}, ['x'])).toEqual({ path: '', reason: 'expected object, received array' });
    expect(checkJson(record, {}, { a: { nested: 'x' } })).toEqual({
      path: 'a',
      reason: 'expected string, received object',
    });
  });
});
