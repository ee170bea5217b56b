/**
 * Every mistake in the provider's settings, not only the first. A provider's factory
 * (providers/<name>/index.ts) stops at the first variable it refuses; here each refused
 * variable is set aside (unset, so that its default is used, or given a stand-in when it
 * is required and missing) and the factory asked again, until it builds or refuses nothing
 * new. The lines are the factory's own: what `createAalisServer` would refuse at start.
 */
import { ConfigError, providerFromEnv } from '../providers/from-env.js';
import { Problems } from './problems.js';

type Env = Record<string, string | undefined>;

/** What a required variable that is missing is given, to find the mistakes after it. */
const STAND_IN = 'aalis-check-stand-in';
/** More than any provider reads: a factory that kept refusing would not loop for ever. */
const MAX_ROUNDS = 20;

/** The provider's mistakes in `env` (the file's provider settings under it), a line each. */
export function providerProblems(env: Env): string[] {
  const problems = new Problems();
  const trial: Env = { ...env };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let message: string;
    try {
      // Nothing is started by building one (the demo model listens at its first turn).
      void providerFromEnv(trial)
        .close()
        .catch(() => {});
      break;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      message = error.message;
    }
    const known = problems.lines.length;
    problems.add(message);
    // Each line starts with the variable it refuses (`AALIS_IDLE_TIMEOUT_MS must be ...`).
    const variable = /^[A-Z][A-Z0-9_]*\b/.exec(message)?.[0];
    if (problems.lines.length === known || !variable || variable === 'AALIS_PROVIDER') break;
    if (trial[variable]?.trim()) delete trial[variable];
    else trial[variable] = STAND_IN;
  }
  return problems.lines;
}
