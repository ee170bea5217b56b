/**
 * The visitor's answer, checked as the server checks it against the MCP server's schema
 * (required fields, types, ranges, lengths, formats, choices, counts), so that a mistake
 * is said at its field at once instead of after a round trip. Every value goes typed:
 * numbers as numbers, booleans, lists; an empty optional field is left out.
 */
import type { ElicitationWords } from './elicitation-words.js';
import type { Field, MultiField, NumberField, SelectField, TextField } from './form-schema.js';

export type Value = string | number | boolean | string[];

/**
 * What a field holds: a box's text (`bad` when the browser could not read what was typed,
 * such as letters in a number box or half a date), a checkbox's state, the ticked choices.
 */
export type Raw = { text: string; bad: boolean } | boolean | string[];

/** A value to send (none: the field is left out), or why the field is refused. */
export type Checked = { value?: Value; problem?: undefined } | { problem: string };

/**
 * The addresses the server's `email` format takes (ajv-formats): a local part, `@`, and a
 * domain of at least two labels. The browser's own check lets `name@host` through.
 */
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
/** A `uri` has a scheme (`https:`, `mailto:`); a relative address is no `uri`. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function checkField(field: Field, raw: Raw, words: ElicitationWords): Checked {
  switch (field.kind) {
    case 'boolean':
      return { value: raw === true };
    case 'multi':
      return checkMulti(field, Array.isArray(raw) ? raw : [], words);
    default: {
      const { text, bad } = typeof raw === 'object' && !Array.isArray(raw) ? raw : { text: '', bad: false };
      // Half a date or letters in a number box: the box reads empty, and it is no answer.
      if (bad) return { problem: field.kind === 'number' ? words.notNumber : problemOf(field, words) };
      // Only spaces is no answer either: a required field needs one.
      if (!text.trim()) return field.required ? { problem: words.missing } : {};
      if (field.kind === 'number') return checkNumber(field, text, words);
      if (field.kind === 'select') return checkSelect(field, text, words);
      return checkText(field, text, words);
    }
  }
}

function checkNumber(field: NumberField, text: string, words: ElicitationWords): Checked {
  const value = Number(text);
  if (!Number.isFinite(value)) return { problem: words.notNumber };
  if (field.integer && !Number.isInteger(value)) return { problem: words.notInteger };
  if (field.minimum !== undefined && value < field.minimum) return { problem: words.tooSmall(field.minimum) };
  if (field.maximum !== undefined && value > field.maximum) return { problem: words.tooBig(field.maximum) };
  return { value };
}

function checkSelect(field: SelectField, text: string, words: ElicitationWords): Checked {
  return field.options.some((o) => o.value === text) ? { value: text } : { problem: words.notOption };
}

function checkText(field: TextField, text: string, words: ElicitationWords): Checked {
  // Lengths in characters as JSON Schema counts them: code points, an emoji is one.
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength)
    return { problem: words.tooShort(field.minLength) };
  if (field.maxLength !== undefined && length > field.maxLength)
    return { problem: words.tooLong(field.maxLength) };
  switch (field.input) {
    case 'email':
      return EMAIL.test(text) ? { value: text } : { problem: words.email };
    case 'url':
      return SCHEME.test(text) && parseUrl(text) ? { value: text } : { problem: words.url };
    case 'date':
      return isDate(text) ? { value: text } : { problem: words.date };
    case 'datetime-local': {
      // The box's local time ("2025-03-01T09:30") goes as RFC 3339, which needs a zone: UTC.
      const time = new Date(text);
      return Number.isNaN(time.getTime()) ? { problem: words.date } : { value: time.toISOString() };
    }
    default:
      return { value: text };
  }
}

function checkMulti(field: MultiField, chosen: string[], words: ElicitationWords): Checked {
  if (chosen.some((v) => !field.options.some((o) => o.value === v))) return { problem: words.notOption };
  // None ticked of an optional list: left out, whatever its least count.
  if (!chosen.length && !field.required) return {};
  const min = Math.max(field.minItems ?? 0, field.required ? 1 : 0);
  if (chosen.length < min) return { problem: words.tooFew(min) };
  if (field.maxItems !== undefined && chosen.length > field.maxItems)
    return { problem: words.tooMany(field.maxItems) };
  return { value: chosen };
}

/**
 * `text` as an absolute URL, or undefined: `URL.parse` and `URL.canParse` are newer than the
 * browsers the widget supports. Also reads a `url` request's page (elicitation-element.ts).
 */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** A calendar date that exists: `2025-02-30` does not. */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** What a box whose text the browser could not read should hold. */
function problemOf(field: Field, words: ElicitationWords): string {
  if (field.kind === 'text' && field.input === 'email') return words.email;
  if (field.kind === 'text' && field.input === 'url') return words.url;
  return field.kind === 'text' && field.input !== 'text' ? words.date : words.missing;
}

/**
 * Every field checked: the content to send, or the problems by field name (in the form's
 * order, so the first is the first to fix).
 */
export function checkForm(
  fields: readonly Field[],
  read: (field: Field, index: number) => Raw,
  words: ElicitationWords,
): { content: Record<string, Value>; problems: Map<string, string> } {
  const values: Array<[string, Value]> = [];
  const problems = new Map<string, string>();
  for (const [index, field] of fields.entries()) {
    const checked = checkField(field, read(field, index), words);
    if (checked.problem !== undefined) problems.set(field.name, checked.problem);
    else if (checked.value !== undefined) values.push([field.name, checked.value]);
  }
  // Made from entries: a field named `__proto__` is a field like any other.
  return { content: Object.fromEntries(values), problems };
}
