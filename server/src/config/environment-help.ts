/**
 * The environment variables' table of `aalis-server --help`, made from the settings'
 * descriptions: each variable's name, default and meaning.
 */
import { SETTINGS, fallbackOf } from './settings/index.js';

/** Name, default and meaning of every variable, in the settings' order. */
export const ENVIRONMENT: ReadonlyArray<[name: string, fallback: string, meaning: string]> = SETTINGS.flatMap(
  (setting) =>
    setting.variables.map((v): [string, string, string] => [
      v.name,
      v.fallback ?? (setting.variables.length === 1 ? (fallbackOf(setting) ?? '') : ''),
      v.help,
    ]),
);

/** The table as `--help` prints it, one variable a line. */
export const environmentHelp = (): string =>
  ENVIRONMENT.map(
    ([name, fallback, meaning]) =>
      `  ${name.padEnd(22)} ${meaning}${fallback ? ` (default: ${fallback})` : ''}`,
  ).join('\n');
