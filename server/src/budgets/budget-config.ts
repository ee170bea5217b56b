/**
 * The budgets' values and their defaults, each a whole number, 0 for no limit. Read from
 * `AALIS_VISITOR_*`, `AALIS_ANON_*`, `AALIS_SERVER_TOKENS_PER_DAY`,
 * `AALIS_MAX_CONCURRENT_TURNS` and the configuration file's `budgets` block by
 * config/load-access.ts.
 */

/** What a visitor, and the whole server, may spend; 0 is no limit. */
export interface BudgetLimits {
  /** Turns a signed visitor may start per hour (the clock hour). */
  visitorTurnsPerHour: number;
  /** Model tokens a signed visitor's turns may use per day (the UTC day). */
  visitorTokensPerDay: number;
  /** The same for an anonymous visitor: stricter by default. */
  anonTurnsPerHour: number;
  anonTokensPerDay: number;
  /**
   * Turns started from one client address per clock hour, every visitor on it together,
   * signed or anonymous: what a visitor that keeps dropping its identity cannot reset. An
   * IPv6 address counts by its /64 (transport/address-form.ts).
   */
  ipTurnsPerHour: number;
  /** Model tokens the turns of one client address may use per UTC day. */
  ipTokensPerDay: number;
  /** Model tokens every turn together may use per UTC day. */
  serverTokensPerDay: number;
  /** Turns running at once, on every session together. */
  maxConcurrentTurns: number;
}

/** The configuration file's `budgets` block. */
export type BudgetSettings = Partial<BudgetLimits>;

/** Every budget at its default: the per-visitor and per-address ones on, the server-wide ones off. */
export const DEFAULT_BUDGETS: BudgetLimits = {
  visitorTurnsPerHour: 60,
  visitorTokensPerDay: 200_000,
  anonTurnsPerHour: 20,
  anonTokensPerDay: 50_000,
  // A school or an office shares one address: room for a few dozen people, far below
  // what a script churning anonymous keys could start without it (1,800 turns an hour).
  ipTurnsPerHour: 120,
  ipTokensPerDay: 1_000_000,
  serverTokensPerDay: 0,
  maxConcurrentTurns: 0,
};

/** No budget at all: what a hub gets when none is configured. */
export const NO_BUDGETS: BudgetLimits = Object.fromEntries(
  Object.keys(DEFAULT_BUDGETS).map((key) => [key, 0]),
) as unknown as BudgetLimits;
