/** Small formatting helpers shared by the widget's parts. */

/** Elapsed milliseconds as the cards show them: `3.2s`. */
export const seconds = (ms: number): string => `${(Math.max(0, ms) / 1000).toFixed(1)}s`;

/** A value as readable JSON: strings as they are, everything else indented. */
export function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
