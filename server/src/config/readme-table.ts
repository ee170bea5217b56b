/**
 * The README's table of every setting (server/README.md, between the `settings-table`
 * markers), made from the settings' descriptions: key, variables, type, default and
 * meaning. `npm run schema -w @aalis/server` writes it; a test keeps it up to date.
 */
import { SETTINGS, fallbackOf, type JsonSchema, type Setting } from './settings/index.js';

export const TABLE_START = '<!-- settings-table: made by `npm run schema -w @aalis/server`, do not edit -->';
export const TABLE_END = '<!-- /settings-table -->';

const code = (text: unknown): string => `\`${String(text)}\``;

/** What a value of this schema is, in words: "whole number from 0 to 65535", "list of strings". */
export function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(code).join(', ')}`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(', or ');
  switch (schema.type) {
    case 'integer': {
      const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
      if (max !== undefined) return `whole number from ${min ?? 0} to ${max}`;
      return min === undefined ? 'whole number' : `whole number, at least ${min}`;
    }
    case 'array':
      return `list of ${typeOf((schema.items ?? {}) as JsonSchema)
        .replace(/^string$/, 'strings')
        .replace(/^one of /, '')}${
        schema.maxItems === undefined ? '' : ` (at most ${String(schema.maxItems)})`
      }`;
    case 'boolean':
      return '`true` or `false`';
    case 'object':
      return 'object';
    default:
      return String(schema.type ?? 'any');
  }
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function row(setting: Setting): string[] {
  const variables = setting.variables.length
    ? setting.variables
        .map((v) => `${code(v.name)}${v.providers ? ` (${v.providers.join(', ')})` : ''}`)
        .join(', ')
    : '(file only)';
  return [
    setting.key ? code(setting.key) : '(environment only)',
    variables,
    `${typeOf(setting.schema)}${setting.mask === 'secret' ? ' (secret)' : ''}`,
    fallbackOf(setting) ?? '',
    setting.description,
  ].map(cell);
}

/** The table, columns padded as Prettier pads them. */
export function settingsTable(): string {
  const rows = [['key', 'variable', 'type', 'default', 'what it is'], ...SETTINGS.map(row)];
  const widths = rows[0]!.map((_, column) => Math.max(3, ...rows.map((r) => r[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n');
}

/** The text between the markers, and where it is in `readme`; a README without them is a mistake. */
export function tableSection(readme: string): { start: number; end: number; text: string } {
  const start = readme.indexOf(TABLE_START) + TABLE_START.length;
  const end = readme.indexOf(TABLE_END);
  if (start < TABLE_START.length || end < start)
    throw new Error(`the README has no ${TABLE_START} ... ${TABLE_END} section`);
  return { start, end, text: readme.slice(start, end) };
}

/** `readme` with `table` (the table, formatted) between the markers. */
export function withSettingsTable(readme: string, table = settingsTable()): string {
  const { start, end } = tableSection(readme);
  return `${readme.slice(0, start)}\n\n${table.trim()}\n\n${readme.slice(end)}`;
}
