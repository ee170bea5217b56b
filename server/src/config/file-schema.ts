/**
 * The configuration file's JSON Schema (published as `schema/aalis-config.schema.json`,
 * `@aalis/server/config.schema.json`), checked with Ajv; each mistake said in one line
 * that names the path: `mcpServers.files.command: required`.
 */
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { atPath, type PathSegment } from './file-path.js';
import { configSchema } from './config-schema.js';

/** The published schema, next to `src/` and `dist/` alike (written from the settings by `npm run schema`). */
export const CONFIG_SCHEMA_FILE = fileURLToPath(
  new URL('../../schema/aalis-config.schema.json', import.meta.url),
);

type Schema = Record<string, unknown>;

let validator: ValidateFunction | undefined;

/** The schema made from the settings' descriptions: the one the published file is written from. */
function compiled(): ValidateFunction {
  validator ??= new Ajv({ allErrors: true, verbose: true }).compile(configSchema());
  return validator;
}

/**
 * Every mistake in `value`, each as `path: what is wrong`; none when it is valid.
 * `unexpanded`: the values still hold `${VAR}` references, so a string that has one is not
 * judged by its text yet (an enum, a length), only by its place and type.
 */
export function schemaProblems(value: unknown, { unexpanded = false } = {}): string[] {
  const validate = compiled();
  if (validate(value)) return [];
  const errors = pickAnyOfBranches(validate.errors ?? []).filter(
    (error) =>
      !['if', 'propertyNames'].includes(error.keyword) &&
      !(
        unexpanded &&
        typeof error.data === 'string' &&
        error.data.includes('${') &&
        error.keyword !== 'type'
      ),
  );
  return [...new Set(errors.map((error) => describe(error, value)))];
}

/**
 * `anyOf` (a string, or an object with a `file`): when the value has the type of one
 * branch, that branch's errors say what is wrong with it; when it has none, the `anyOf`
 * error alone does ("must be a string or an object").
 */
function pickAnyOfBranches(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const anyOf of errors.filter((error) => error.keyword === 'anyOf')) {
    const branches = anyOf.schema as Schema[];
    const matching = branches.findIndex((branch) => typeMatches(branch.type, anyOf.data));
    const inBranch = (error: ErrorObject, index: number) =>
      error.schemaPath.startsWith(`${anyOf.schemaPath}/${index}/`);
    kept = kept.filter((error) =>
      matching === -1
        ? !branches.some((_branch, index) => inBranch(error, index))
        : error !== anyOf && !branches.some((_branch, index) => index !== matching && inBranch(error, index)),
    );
  }
  return kept;
}

function typeMatches(type: unknown, data: unknown): boolean {
  const actual = Array.isArray(data) ? 'array' : data === null ? 'null' : typeof data;
  return type === actual || (type === 'integer' && Number.isInteger(data));
}

function describe(error: ErrorObject, root: unknown): string {
  const path = segments(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Schema;
  switch (error.keyword) {
    case 'required':
      return atPath([...path, String(params.missingProperty)], 'required');
    case 'dependencies':
      return atPath([...path, String(params.missingProperty)], `required with ${String(params.property)}`);
    case 'additionalProperties':
      return atPath(path, `unknown key "${String(params.additionalProperty)}"`);
    case 'anyOf':
      return atPath(path, `must be ${(error.schema as Schema[]).map(kind).join(' or ')}`);
    case 'enum':
      return atPath(path, `must be one of ${(params.allowedValues as unknown[]).join(', ')}`);
    case 'type':
    case 'minimum':
    case 'maximum':
      return atPath(path, `must be ${kind(schema)}`);
    case 'minLength':
      return atPath(path, 'must not be empty');
    case 'uniqueItems':
      return atPath(path, `${JSON.stringify((error.data as unknown[])[params.j as number])} is listed twice`);
    case 'pattern':
      // Only property names have patterns: the name of an MCP server, a tool in `approval`.
      return error.propertyName === undefined
        ? atPath(path, `must match ${String(params.pattern)}`)
        : atPath(
            path,
            `"${error.propertyName}" is not ${String(schema.description ?? `like ${String(params.pattern)}`)}`,
          );
    default:
      return atPath(path, error.message ?? error.keyword);
  }
}

const ARTICLES: Record<string, string> = {
  string: 'a string',
  object: 'an object',
  array: 'a list',
  boolean: 'true or false',
  number: 'a number',
  null: 'null',
};

/** What a value of this schema is: "a string", "a whole number from 0 to 65535". */
function kind(schema: Schema): string {
  if (schema.type === 'integer') {
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
    if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}`;
    if (min !== undefined) return `a whole number of at least ${min}`;
    return 'a whole number';
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type)];
  return types.map((type) => ARTICLES[type] ?? type).join(' or ');
}

/** The JSON pointer's steps, array indexes as numbers (they are written `[2]`). */
function segments(pointer: string, root: unknown): PathSegment[] {
  const path: PathSegment[] = [];
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path.push(Number(key));
      node = node[Number(key)];
    } else {
      path.push(key);
      node = (node as Record<string, unknown> | undefined)?.[key];
    }
  }
  return path;
}
