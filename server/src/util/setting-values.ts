/**
 * Reading configuration values from the environment, each mistake said in one line that
 * names the variable to fix (the CLI prints it and exits 2).
 */

/** A configuration mistake, said in one line that names the variable to fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Node's timers take at most this many milliseconds; a longer delay fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A whole number from 1 to `max`, or `fallback` when the variable is unset. `max` is
 * there because a value past it would not mean "more" but something else (a timer past
 * MAX_TIMER_MS fires at once).
 */
export function wholeNumber(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  { max = Number.MAX_SAFE_INTEGER, unit = '' }: { max?: number; unit?: string } = {},
): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    const what = unit ? `a whole number of ${unit}` : 'a whole number';
    throw new ConfigError(`${name} must be ${what} from 1 to ${max}; it is "${text}"`);
  }
  return value;
}

/**
 * A block of limits (budgets, per-IP limits): each from its variable when set, else from
 * the configuration file's block, else its default. Each is a whole number, 0 for no
 * limit; a mistake names the variable.
 */
export function limitsFrom<Limits extends { [K in keyof Limits]: number }>(
  variables: ReadonlyArray<readonly [key: keyof Limits & string, variable: string, ...rest: unknown[]]>,
  defaults: Limits,
  env: Record<string, string | undefined>,
  file: Partial<Limits> = {},
): Limits {
  const limits = { ...defaults };
  for (const [key, variable] of variables) {
    const text = env[variable]?.trim();
    if (text) {
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
        throw new ConfigError(`${variable} must be a whole number (0 for no limit); it is "${text}"`);
      limits[key] = Number(text) as Limits[typeof key];
    } else if (file[key] !== undefined) {
      limits[key] = file[key] as Limits[typeof key];
    }
  }
  return limits;
}
