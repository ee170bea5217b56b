/**
 * A very small checker for the subset of JSON Schema that our generated schema uses
 * (type, const, enum, properties, required, additionalProperties, items, oneOf, $ref,
 * minimum, minLength, maxLength), in the compact form json-schema.ts writes for it: a
 * `$ref` is the bare definition name, `properties` implies an object, and a schema says
 * nothing that another keyword of it already says. It exists so that a browser can
 * validate server frames against the very schema the valibot definitions produce, for a
 * few hundred bytes instead of the validation library's few kilobytes. The protocol tests
 * hold it to agree with the valibot validators, and fail if the generated schema starts
 * using another keyword.
 */

export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: readonly unknown[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  /** A record's values (or the fields `properties` does not name). */
  additionalProperties?: JsonSchema;
  items?: JsonSchema;
  oneOf?: readonly JsonSchema[];
  $ref?: string;
  minimum?: number;
  minLength?: number;
  maxLength?: number;
}

/** The first problem found: the dot path of the field (empty for the value itself) and why. */
interface JsonProblem {
  path: string;
  reason: string;
}

export const SUPPORTED_KEYWORDS = [
  'type',
  'const',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'oneOf',
  '$ref',
  'minimum',
  'minLength',
  'maxLength',
];

const kind = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

const fits = (type: string, value: unknown): boolean => {
  const actual = kind(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

const join = (path: string, key: string | number): string => (path ? `${path}.${key}` : `${key}`);

export function checkJson(
  schema: JsonSchema,
  defs: Readonly<Record<string, JsonSchema>>,
  value: unknown,
  path = '',
): JsonProblem | undefined {
  const fail = (reason: string): JsonProblem => ({ path, reason });
  if (schema.$ref) return checkJson(defs[schema.$ref] ?? {}, defs, value, path);
  if (schema.oneOf) {
    // Our unions are tagged by a `type` constant: check against the branch the tag names.
    const resolve = (s: JsonSchema): JsonSchema => (s.$ref ? (defs[s.$ref] ?? {}) : s);
    const tag = (value as { type?: unknown } | null)?.type;
    const branch = schema.oneOf.map(resolve).find((s) => s.properties?.type?.const === tag);
    return branch
      ? checkJson(branch, defs, value, path)
      : fail(`expected one of the known variants, received ${kind(value)}`);
  }
  const type = schema.type ?? (schema.properties && 'object');
  if (type && !fits(type, value)) return fail(`expected ${type}, received ${kind(value)}`);
  if ('const' in schema && value !== schema.const) return fail(`expected ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value))
    return fail(`expected one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) {
    return fail(`expected >=${schema.minimum}, received ${value}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      return fail(`expected length >=${schema.minLength}, received ${value.length}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      return fail(`expected length <=${schema.maxLength}, received ${value.length}`);
  }
  if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) {
      const problem = checkJson(schema.items, defs, value[i], join(path, i));
      if (problem) return problem;
    }
  }
  if (schema.additionalProperties && kind(value) === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (schema.properties && Object.hasOwn(schema.properties, key)) continue;
      const problem = checkJson(schema.additionalProperties, defs, item, join(path, key));
      if (problem) return problem;
    }
  }
  if (schema.properties && typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(record, key)) return { path: join(path, key), reason: 'required' };
    }
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (!Object.hasOwn(record, key)) continue;
      const problem = checkJson(sub, defs, record[key], join(path, key));
      if (problem) return problem;
    }
  }
  return undefined;
}
