/**
 * The configuration file's JSON Schema (published as `schema/aalis-config.schema.json`,
 * `@aalis/server/config.schema.json`), checked with Ajv; each mistake said in one line
 * that names the path and what it takes: `mcpServers.files.command: required: the program
 * to run (npx, node, uvx, a path)`, `unknown key "sytemPrompt" (did you mean "systemPrompt"?)`.
 */
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { mistakeAt, type Mistake, type PathSegment } from './file-path.js';
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
  return schemaMistakes(value, { unexpanded }).map((mistake) => mistake.line);
}

/** As `schemaProblems`, each line with the path of what it is about. */
export function schemaMistakes(value: unknown, { unexpanded = false } = {}): Mistake[] {
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
  const mistakes = errors.map((error) => describe(error, value));
  return mistakes.filter((mistake, index) => mistakes.findIndex((m) => m.line === mistake.line) === index);
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

function describe(error: ErrorObject, root: unknown): Mistake {
  const path = segments(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Schema;
  switch (error.keyword) {
    case 'required':
    case 'dependencies': {
      const missing = String(params.missingProperty);
      const what = error.keyword === 'required' ? 'required' : `required with ${String(params.property)}`;
      const hint = propertyHint((schema.properties as Record<string, Schema> | undefined)?.[missing]);
      return mistakeAt([...path, missing], hint ? `${what}: ${hint}` : what);
    }
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      return { ...mistakeAt(path, `unknown key "${key}"${allowedKeys(key, schema)}`), path: [...path, key] };
    }
    case 'anyOf':
      return mistakeAt(path, `must be ${(error.schema as Schema[]).map(kind).join(' or ')}`);
    case 'enum':
      return mistakeAt(path, `must be one of ${(params.allowedValues as unknown[]).join(', ')}`);
    case 'type':
    case 'minimum':
    case 'maximum':
      return mistakeAt(path, `must be ${kind(schema)}`);
    case 'minLength':
      return mistakeAt(path, 'must not be empty');
    case 'uniqueItems':
      return mistakeAt(
        path,
        `${JSON.stringify((error.data as unknown[])[params.j as number])} is listed twice`,
      );
    case 'pattern':
      // Only property names have patterns: the name of an MCP server, a tool in `approval`.
      return error.propertyName === undefined
        ? mistakeAt(path, `must match ${String(params.pattern)}`)
        : {
            ...mistakeAt(
              path,
              `"${error.propertyName}" is not ${String(schema.description ?? `like ${String(params.pattern)}`)}`,
            ),
            path: [...path, error.propertyName],
          };
    default:
      return mistakeAt(path, error.message ?? error.keyword);
  }
}

/** What a required key takes: its allowed values, else the start of its description. */
function propertyHint(property: Schema | undefined): string | undefined {
  if (Array.isArray(property?.enum)) return `one of ${property.enum.join(', ')}`;
  const description = typeof property?.description === 'string' ? property.description : undefined;
  // Only a definition's own words: a setting's description starts with its variables.
  if (!description || /^[A-Z][A-Z0-9_]+\b/.test(description)) return undefined;
  const sentence = description.replace(/\.(\s.*)?$/s, '');
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/** The key meant, when one is a slip away; else the keys allowed, when they are few. */
function allowedKeys(key: string, schema: Schema): string {
  const keys = Object.keys((schema.properties as Schema | undefined) ?? {}).filter((k) => k !== '$schema');
  const meant = keys.find((k) => slips(key.toLowerCase(), k.toLowerCase()) <= Math.min(2, k.length >> 2));
  if (meant) return ` (did you mean "${meant}"?)`;
  return keys.length && keys.length <= MAX_KEYS_LISTED ? ` (allowed here: ${keys.join(', ')})` : '';
}

/** A block with more keys than this names none of them: the schema and the README list them. */
const MAX_KEYS_LISTED = 12;

/** Edits from one word to the other: a letter added, dropped, changed, or two swapped. */
function slips(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
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
