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
