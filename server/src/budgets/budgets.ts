/**
 * The budgets a `send` must fit in (SessionHub.send asks before a turn starts): a
 * visitor's turns per hour and model tokens per day, stricter for anonymous visitors, the
 * same for every visitor of one client address together (so that dropping an identity
 * for a fresh one resets nothing), and the whole server's tokens per day and turns at once. Turns are counted when a send is
 * accepted, tokens when its turn ends (turn-tokens.ts), so a turn that starts within the
 * budget runs to its end and the next one is refused.
 *
 * Per-visitor budgets need to know who the visitor is: without identity configured (no
 * `AALIS_AUTH_SECRET` or `AALIS_AUTH_JWKS_URL`) there is no visitor, and only the
 * server-wide budgets apply. Windows are fixed (fixed-window.ts): turns per clock hour,
 * tokens per UTC day.
 *
 * Every method is asynchronous because the counters may live in Redis, shared by every
 * instance (redis-budget-store.ts), so that a visitor's limits hold whichever instance
 * their sends reach.
 */
import { ErrorCode } from '@aalis/protocol';
import { NO_BUDGETS, type BudgetLimits } from './budget-config.js';
import type { BudgetStore } from './budget-store.js';
import { FixedWindow } from './fixed-window.js';
import { MemoryBudgetStore } from './memory-budget-store.js';

/** Which budget ran out, as an `error` frame's `limit` says it. */
export type BudgetLimitName =
  | 'visitor_turns'
  | 'visitor_tokens'
  | 'address_turns'
  | 'address_tokens'
  | 'server_tokens'
  | 'concurrent_turns';

/** A visitor as identity made it (the hub's `Peer.visitor`). */
export interface BudgetVisitor {
  readonly id: string;
  readonly kind: 'signed' | 'anonymous';
}

/** Why a send is refused: what the `error` frame says, besides `clientMessageId`. */
export interface BudgetRefusal {
  /** `quota_exceeded` for the visitor's own budgets, `overloaded` for the server's. */
  code: typeof ErrorCode.QuotaExceeded | typeof ErrorCode.Overloaded;
  limit: BudgetLimitName;
  message: string;
  /** When the budget comes back; absent for concurrent turns (when one ends is unknown). */
  retryInMs?: number;
}

export interface BudgetsOptions {
  limits?: BudgetLimits;
  store?: BudgetStore;
  now?: () => number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The server's own subject in the store. */
const SERVER = 'server';
/** A send whose address is unknown (an adapter that gives none) is not counted per address. */
const NO_ADDRESS = { ipTurnsPerHour: 0, ipTokensPerDay: 0 };

export class Budgets {
  readonly limits: BudgetLimits;
  /** False when every limit is 0: then nothing is read or counted. */
  readonly active: boolean;
  readonly #turns: FixedWindow;
  readonly #tokens: FixedWindow;
  readonly #addressTurns: FixedWindow;
  readonly #addressTokens: FixedWindow;
  readonly #serverTokens: FixedWindow;
  readonly #store: BudgetStore;
  readonly #now: () => number;
  #prunedHour = -1;

  constructor({ limits = NO_BUDGETS, store = new MemoryBudgetStore(), now = Date.now }: BudgetsOptions = {}) {
    this.limits = { ...limits };
    this.active = Object.values(limits).some((limit) => limit > 0);
    this.#store = store;
    this.#now = now;
    this.#turns = new FixedWindow('visitor_turns', HOUR_MS, store);
    this.#tokens = new FixedWindow('visitor_tokens', DAY_MS, store);
    this.#addressTurns = new FixedWindow('address_turns', HOUR_MS, store);
    this.#addressTokens = new FixedWindow('address_tokens', DAY_MS, store);
    this.#serverTokens = new FixedWindow('server_tokens', DAY_MS, store);
  }

  /**
   * Why a send from `visitor` at client `address` (its count key: an IPv6 address's /64)
   * must be refused now, or undefined when it fits. The visitor's own budgets are checked
   * first, then its address's: those answers hold however busy the server is. The
   * counters are read together (one round trip's wait on a shared store, not five), then
   * weighed in that order. `runningTurns` is asked only when concurrent turns are limited,
   * after the reads, so that it counts the turns running when the answer is given.
   */
  async refusal(
    visitor: BudgetVisitor | undefined,
    address: string | undefined,
    runningTurns: () => number | Promise<number>,
  ): Promise<BudgetRefusal | undefined> {
    if (!this.active) return undefined;
    const now = this.#now();
    const { turns, tokens } = visitor ? this.#visitorLimits(visitor) : { turns: 0, tokens: 0 };
    const subject = visitor ? subjectOf(visitor) : '';
    const { serverTokensPerDay, maxConcurrentTurns } = this.limits;
    const { ipTurnsPerHour, ipTokensPerDay } = address === undefined ? NO_ADDRESS : this.limits;
    // A budget that is off is not read: 0 stands in for its count.
    const [turnsUsed, tokensUsed, addressTurnsUsed, addressTokensUsed, serverTokensUsed] = await Promise.all([
      turns ? this.#turns.used(subject, now) : 0,
      tokens ? this.#tokens.used(subject, now) : 0,
      ipTurnsPerHour ? this.#addressTurns.used(address!, now) : 0,
      ipTokensPerDay ? this.#addressTokens.used(address!, now) : 0,
      serverTokensPerDay ? this.#serverTokens.used(SERVER, now) : 0,
    ]);
    const over = (window: FixedWindow, limit: BudgetLimitName, message: (wait: string) => string) => {
      const retryInMs = window.window(now).endsInMs;
      const code = limit === 'server_tokens' ? ErrorCode.Overloaded : ErrorCode.QuotaExceeded;
      return { code, limit, retryInMs, message: message(wait(retryInMs)) };
    };
    if (turns && turnsUsed >= turns)
      return over(
        this.#turns,
        'visitor_turns',
        (later) => `you have reached this chat's limit of ${turns} messages per hour: try again in ${later}`,
      );
    if (tokens && tokensUsed >= tokens)
      return over(
        this.#tokens,
        'visitor_tokens',
        (later) => `you have used this chat's daily allowance of answers: try again in ${later}`,
      );
    if (ipTurnsPerHour && addressTurnsUsed >= ipTurnsPerHour)
      return over(
        this.#addressTurns,
        'address_turns',
        (later) =>
          `this chat has answered as many messages from your network as it can this hour: try again in ${later}`,
      );
    if (ipTokensPerDay && addressTokensUsed >= ipTokensPerDay)
      return over(
        this.#addressTokens,
        'address_tokens',
        (later) => `this chat has used today's allowance of answers for your network: try again in ${later}`,
      );
    if (serverTokensPerDay && serverTokensUsed >= serverTokensPerDay)
      return over(
        this.#serverTokens,
        'server_tokens',
        (later) => `this chat has used its answers for today: try again in ${later}`,
      );
    if (maxConcurrentTurns && (await runningTurns()) >= maxConcurrentTurns) {
      return {
        code: ErrorCode.Overloaded,
        limit: 'concurrent_turns',
        message: 'the server is answering as many messages as it can: try again in a moment',
      };
    }
    return undefined;
  }

  /**
   * Today's model tokens of the whole server against `serverTokensPerDay` (0: no limit),
   * for /metrics; undefined when that budget is off (then nothing counts them).
   */
  async serverSpend(): Promise<{ used: number; limit: number } | undefined> {
    const limit = this.limits.serverTokensPerDay;
    if (!limit) return undefined;
    return { used: await this.#serverTokens.used(SERVER, this.#now()), limit };
  }

  /** A send was accepted: one turn on the visitor's and its address's hourly counts. */
  async turnAccepted(visitor: BudgetVisitor | undefined, address?: string): Promise<void> {
    const visitorCounts = visitor !== undefined && this.#visitorLimits(visitor).turns > 0;
    const addressCounts = address !== undefined && this.limits.ipTurnsPerHour > 0;
    if (!visitorCounts && !addressCounts) return;
    const now = this.#now();
    await Promise.all([
      visitorCounts ? this.#turns.add(subjectOf(visitor), 1, now) : 0,
      addressCounts ? this.#addressTurns.add(address, 1, now) : 0,
    ]);
    await this.#prune(now);
  }

  /** A turn ended having used `tokens`: on the visitor's, its address's and the server's daily counts. */
  async turnEnded(visitor: BudgetVisitor | undefined, tokens: number, address?: string): Promise<void> {
    if (!this.active || tokens <= 0) return;
    const now = this.#now();
    // Counters of their own: none waits for another.
    await Promise.all([
      visitor && this.#visitorLimits(visitor).tokens ? this.#tokens.add(subjectOf(visitor), tokens, now) : 0,
      address !== undefined && this.limits.ipTokensPerDay ? this.#addressTokens.add(address, tokens, now) : 0,
      this.limits.serverTokensPerDay ? this.#serverTokens.add(SERVER, tokens, now) : 0,
    ]);
    await this.#prune(now);
  }

  #visitorLimits(visitor: BudgetVisitor): { turns: number; tokens: number } {
    const { limits } = this;
    return visitor.kind === 'signed'
      ? { turns: limits.visitorTurnsPerHour, tokens: limits.visitorTokensPerDay }
      : { turns: limits.anonTurnsPerHour, tokens: limits.anonTokensPerDay };
  }

  /** Forgets what `visitor` has used (the owner erased it): its next turn starts afresh. */
  async forgetVisitor(visitor: BudgetVisitor): Promise<void> {
    const now = this.#now();
    await Promise.all([
      this.#turns.forget(subjectOf(visitor), now),
      this.#tokens.forget(subjectOf(visitor), now),
    ]);
  }

  /**
   * Ended windows are forgotten once an hour, so the store holds only live ones. The hour
   * is marked before the prune is awaited, so turns ending meanwhile do not prune again.
   */
  async #prune(now: number): Promise<void> {
    const hour = Math.floor(now / HOUR_MS);
    if (hour === this.#prunedHour) return;
    this.#prunedHour = hour;
    await this.#store.prune(now);
  }
}

/** Signed and anonymous ids never share a count, whatever they look like. */
const subjectOf = (visitor: BudgetVisitor): string => `${visitor.kind}:${visitor.id}`;

/** "23 min", "5 h 12 min", "less than a minute": when a budget comes back, in a message. */
export function wait(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  if (ms < 60_000) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}
