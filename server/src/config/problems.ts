/**
 * Every mistake in the configuration, not only the first: each check runs, and what it
 * refuses is kept as its line; then one ConfigError carries them all, a line each
 * (`aalis-server` prints each line and exits 2).
 */
import { ConfigError } from '../util/setting-values.js';

export class Problems {
  readonly lines: string[] = [];

  /** What `check` returns, or undefined when it refuses with a ConfigError (its lines are kept). */
  catch<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.add(...error.message.split('\n'));
      return undefined;
    }
  }

  add(...lines: string[]): void {
    for (const line of lines) if (!this.lines.includes(line)) this.lines.push(line);
  }

  get found(): boolean {
    return this.lines.length > 0;
  }

  /** Throws every line kept, each after `prefix` (the file's name), as one ConfigError. */
  throwFound(prefix = ''): void {
    if (this.found) throw new ConfigError(this.lines.map((line) => `${prefix}${line}`).join('\n'));
  }
}
