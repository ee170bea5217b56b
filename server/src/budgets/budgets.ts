/**
 * The budgets a `send` must fit in (SessionHub.send asks before a turn starts): a
 * visitor's turns per hour and model tokens per day, stricter for anonymous visitors, and
 * the whole server's tokens per day and turns at once. Turns are counted when a send is
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
export type BudgetLimitName = 'visitor_turns' | 'visitor_tokens' | 'server_tokens' | 'concurrent_turns';

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

export class Budgets {
  readonly limits: BudgetLimits;
  /** False when every limit is 0: then nothing is read or counted. */
  readonly active: boolean;
  readonly #turns: FixedWindow;
  readonly #tokens: FixedWindow;
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
    this.#serverTokens = new FixedWindow('server_tokens', DAY_MS, store);
  }

  /**
   * Why a send from `visitor` must be refused now, or undefined when it fits. The
   * visitor's own budgets are checked first: that answer holds however busy the server is.
   * The counters are read together (one round trip's wait on a shared store, not three),
   * then weighed in that order. `runningTurns` is asked only when concurrent turns are
   * limited, after the reads, so that it counts the turns running when the answer is given.
   */
  async refusal(
    visitor: BudgetVisitor | undefined,
    runningTurns: () => number | Promise<number>,
  ): Promise<BudgetRefusal | undefined> {
    if (!this.active) return undefined;
    const now = this.#now();
    const { turns, tokens } = visitor ? this.#visitorLimits(visitor) : { turns: 0, tokens: 0 };
    const subject = visitor ? subjectOf(visitor) : '';
    const { serverTokensPerDay, maxConcurrentTurns } = this.limits;
    // A budget that is off is not read: 0 stands in for its count.
    const [turnsUsed, tokensUsed, serverTokensUsed] = await Promise.all([
      turns ? this.#turns.used(subject, now) : 0,
      tokens ? this.#tokens.used(subject, now) : 0,
      serverTokensPerDay ? this.#serverTokens.used(SERVER, now) : 0,
    ]);
    if (turns && turnsUsed >= turns) {
      const retryInMs = this.#turns.window(now).endsInMs;
      return {
        code: ErrorCode.QuotaExceeded,
        limit: 'visitor_turns',
        retryInMs,
        message: `you have reached this chat's limit of ${turns} messages per hour: try again in ${wait(retryInMs)}`,
      };
    }
    if (tokens && tokensUsed >= tokens) {
      const retryInMs = this.#tokens.window(now).endsInMs;
      return {
        code: ErrorCode.QuotaExceeded,
        limit: 'visitor_tokens',
        retryInMs,
        message: `you have used this chat's daily allowance of answers: try again in ${wait(retryInMs)}`,
      };
    }
    if (serverTokensPerDay && serverTokensUsed >= serverTokensPerDay) {
      const retryInMs = this.#serverTokens.window(now).endsInMs;
      return {
        code: ErrorCode.Overloaded,
        limit: 'server_tokens',
        retryInMs,
        message: `this chat has used its answers for today: try again in ${wait(retryInMs)}`,
      };
    }
    if (maxConcurrentTurns && (await runningTurns()) >= maxConcurrentTurns) {
      return {
        code: ErrorCode.Overloaded,
        limit: 'concurrent_turns',
        message: 'the server is answering as many messages as it can: try again in a moment',
      };
    }
    return undefined;
  }

  /** A send was accepted: one turn on the visitor's hourly count. */
  async turnAccepted(visitor: BudgetVisitor | undefined): Promise<void> {
    if (!visitor || !this.#visitorLimits(visitor).turns) return;
    const now = this.#now();
    await this.#turns.add(subjectOf(visitor), 1, now);
    await this.#prune(now);
  }

  /** A turn ended having used `tokens`: on the visitor's and the server's daily counts. */
  async turnEnded(visitor: BudgetVisitor | undefined, tokens: number): Promise<void> {
    if (!this.active || tokens <= 0) return;
    const now = this.#now();
    // Two counters of their own: neither waits for the other.
    await Promise.all([
      visitor && this.#visitorLimits(visitor).tokens ? this.#tokens.add(subjectOf(visitor), tokens, now) : 0,
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
