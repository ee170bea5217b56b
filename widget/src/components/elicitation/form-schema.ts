/**
 * The fields of a form-mode elicitation, read from its `requestedSchema` (MCP's flat
 * subset of JSON Schema), in the order the MCP server wrote them. Each field says how it
 * is shown and what it accepts; a `default` the schema gives is its only starting value,
 * taken when it fits the field: nothing written by the model ever fills a field.
 */
import type { ElicitationForm } from '@aalis/protocol/client';

export interface Option {
  value: string;
  label: string;
}

interface FieldBase {
  name: string;
  /** The schema's `title`, else the property's name. */
  label: string;
  description?: string;
  required: boolean;
}

/** A text box; `input` is the `type` of its `<input>`, from the schema's `format`. */
export interface TextField extends FieldBase {
  kind: 'text';
  input: 'text' | 'email' | 'url' | 'date' | 'datetime-local';
  minLength?: number;
  maxLength?: number;
  initial?: string;
}

export interface NumberField extends FieldBase {
  kind: 'number';
  integer: boolean;
  minimum?: number;
  maximum?: number;
  initial?: number;
}

export interface BooleanField extends FieldBase {
  kind: 'boolean';
  initial?: boolean;
}

/** One of a list (`enum`, with legacy `enumNames`, or `oneOf` of `{ const, title }`). */
export interface SelectField extends FieldBase {
  kind: 'select';
  options: Option[];
  initial?: string;
}

/** Any of a list (`type: array` of `items.enum`, or `items.anyOf` of `{ const, title }`). */
export interface MultiField extends FieldBase {
  kind: 'multi';
  options: Option[];
  minItems?: number;
  maxItems?: number;
  initial?: string[];
}

export type Field = TextField | NumberField | BooleanField | SelectField | MultiField;

type Schema = Record<string, unknown>;

const FORMATS: Record<string, TextField['input']> = {
  email: 'email',
  uri: 'url',
  date: 'date',
  'date-time': 'datetime-local',
};

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
/** The optional keys whose value is defined: a field carries no `undefined` members. */
const defined = <T extends object>(fields: T): T =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;

export function fieldsOf(form: ElicitationForm | undefined): Field[] {
  if (!form) return [];
  const required = new Set(form.required ?? []);
  return Object.entries(form.properties).map(([name, schema]) => fieldOf(name, schema, required.has(name)));
}

function fieldOf(name: string, schema: Schema, required: boolean): Field {
  const base = defined({
    name,
    label: str(schema.title) || name,
    description: str(schema.description) || undefined,
    required,
  });
  const initial = schema.default;
  if (schema.type === 'array') {
    const options = optionsOf((schema.items ?? {}) as Schema, 'anyOf');
    const chosen = Array.isArray(initial)
      ? initial.filter((v): v is string => options.some((o) => o.value === v))
      : undefined;
    return defined({
      ...base,
      kind: 'multi',
      options,
      minItems: num(schema.minItems),
      maxItems: num(schema.maxItems),
      initial: chosen,
    });
  }
  const options = optionsOf(schema, 'oneOf');
  if (options.length) {
    const fits = options.some((o) => o.value === initial);
    return defined({ ...base, kind: 'select', options, initial: fits ? (initial as string) : undefined });
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const integer = schema.type === 'integer';
    const start = num(initial);
    return defined({
      ...base,
      kind: 'number',
      integer,
      minimum: num(schema.minimum),
      maximum: num(schema.maximum),
      initial: start !== undefined && (!integer || Number.isInteger(start)) ? start : undefined,
    });
  }
  if (schema.type === 'boolean') {
    return defined({ ...base, kind: 'boolean', initial: typeof initial === 'boolean' ? initial : undefined });
  }
  // A string, and whatever else a newer MCP may allow: a text box says it as it is.
  const input = FORMATS[str(schema.format) ?? ''] ?? 'text';
  const start = str(initial);
  return defined({
    ...base,
    kind: 'text',
    input,
    minLength: num(schema.minLength),
    maxLength: num(schema.maxLength),
    initial: start !== undefined && input === 'datetime-local' ? localDateTime(start) : start,
  });
}

/** `enum` (titled by a legacy `enumNames`), or a list of `{ const, title }` under `key`. */
function optionsOf(schema: Schema, key: 'oneOf' | 'anyOf'): Option[] {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.flatMap((value: unknown, i) =>
      typeof value === 'string' ? [{ value, label: str(names[i]) || value }] : [],
    );
  }
  const list = schema[key];
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    const { const: value, title } = (entry ?? {}) as Schema;
    return typeof value === 'string' ? [{ value, label: str(title) || value }] : [];
  });
}

/**
 * An RFC 3339 time as a `datetime-local` box shows it, in the visitor's time zone
 * ("2025-03-01T09:30"); '' for one that is not a time.
 */
function localDateTime(text: string): string {
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) return '';
  return new Date(time.getTime() - time.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
