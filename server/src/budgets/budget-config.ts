/**
 * The budgets' settings (`AALIS_VISITOR_*`, `AALIS_ANON_*`, `AALIS_SERVER_TOKENS_PER_DAY`,
 * `AALIS_MAX_CONCURRENT_TURNS`, or the configuration file's `budgets` block), each a whole
 * number, 0 for no limit. A variable that is set wins over the file.
 */
import { limitsFrom } from '../util/setting-values.js';

/** What a visitor, and the whole server, may spend; 0 is no limit. */
export interface BudgetLimits {
  /** Turns a signed visitor may start per hour (the clock hour). */
  visitorTurnsPerHour: number;
  /** Model tokens a signed visitor's turns may use per day (the UTC day). */
  visitorTokensPerDay: number;
  /** The same for an anonymous visitor: stricter by default. */
  anonTurnsPerHour: number;
  anonTokensPerDay: number;
  /** Model tokens every turn together may use per UTC day. */
  serverTokensPerDay: number;
  /** Turns running at once, on every session together. */
  maxConcurrentTurns: number;
}

/** The configuration file's `budgets` block. */
export type BudgetSettings = Partial<BudgetLimits>;

/** Each setting: the variable that wins over it, its default, and what it is (for --help). */
export const BUDGET_VARIABLES: Array<
  [key: keyof BudgetLimits, variable: string, fallback: number, meaning: string]
> = [
  [
    'visitorTurnsPerHour',
    'AALIS_VISITOR_TURNS_PER_HOUR',
    60,
    'turns a signed visitor may start per hour; 0: no limit',
  ],
  [
    'visitorTokensPerDay',
    'AALIS_VISITOR_TOKENS_PER_DAY',
    200_000,
    "model tokens a signed visitor's turns may use per UTC day; 0: no limit",
  ],
  [
    'anonTurnsPerHour',
    'AALIS_ANON_TURNS_PER_HOUR',
    20,
    'turns an anonymous visitor may start per hour; 0: no limit',
  ],
  [
    'anonTokensPerDay',
    'AALIS_ANON_TOKENS_PER_DAY',
    50_000,
    "model tokens an anonymous visitor's turns may use per UTC day; 0: no limit",
  ],
  [
    'serverTokensPerDay',
    'AALIS_SERVER_TOKENS_PER_DAY',
    0,
    'model tokens all turns together may use per UTC day (then sends get overloaded); 0: no limit',
  ],
  [
    'maxConcurrentTurns',
    'AALIS_MAX_CONCURRENT_TURNS',
    0,
    'turns running at once on the whole server (more get overloaded); 0: no limit',
  ],
];

/** Every budget at its default: the per-visitor ones on, the server-wide ones off. */
export const DEFAULT_BUDGETS: BudgetLimits = Object.fromEntries(
  BUDGET_VARIABLES.map(([key, , fallback]) => [key, fallback]),
) as unknown as BudgetLimits;

/** No budget at all: what a hub gets when none is configured. */
export const NO_BUDGETS: BudgetLimits = Object.fromEntries(
  BUDGET_VARIABLES.map(([key]) => [key, 0]),
) as unknown as BudgetLimits;

type Env = Record<string, string | undefined>;

/** The budgets from the environment over the file's `budgets` block. */
export function loadBudgetConfig(env: Env, file: BudgetSettings = {}): BudgetLimits {
  return limitsFrom(BUDGET_VARIABLES, DEFAULT_BUDGETS, env, file);
}
