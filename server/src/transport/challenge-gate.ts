/**
 * The bot challenge anonymous visitors pass before their first turn (PROTOCOL.md section
 * 2, `AALIS_CHALLENGE`). A `send` from an anonymous visitor that has not passed is
 * refused with `challenge_required`, naming the provider and site key; the client shows
 * the provider's widget and sends its token as `hello.challenge`. The token is checked
 * once with the provider's siteverify endpoint (the secret, the token and the visitor's
 * address, form-encoded): only `success: true` passes. A refusal, an answer that is not
 * JSON, a verifier that cannot be reached or takes too long all fail closed.
 *
 * A pass is kept for the anonymous visitor (its key), in the store the budgets count in
 * (Redis shared by every instance, or the data folder): the same browser is not asked
 * again on its next connection, on another instance or after a restart. A peer without
 * an identity (a server with none configured) keeps its pass for the connection.
 */
import { ErrorCode, type Challenge } from '@aalis/protocol';
import type { BudgetStore } from '../budgets/budget-store.js';
import type { ChallengeConfig } from '../identity/challenge-config.js';

/** How long a pass lasts for an anonymous key: a month, like the providers' own cookies at most. */
export const CHALLENGE_PASS_MS = 30 * 24 * 60 * 60 * 1000;
/** The longest a verify request may take before the check fails closed. */
export const VERIFY_TIMEOUT_MS = 5_000;

export type ChallengeVerdict = { ok: true } | { ok: false; why: string };

export interface ChallengeGate {
  /** What the `challenge` field of `challenge_required` and `challenge_failed` says. */
  readonly challenge: Challenge;
  /** Whether the anonymous visitor `visitorId` has passed (within `CHALLENGE_PASS_MS`). */
  passed(visitorId: string): Promise<boolean>;
  /** Checks `token` with the provider; a pass is kept for `visitorId` when there is one. */
  verify(
    token: string,
    remoteAddress: string | undefined,
    visitorId: string | undefined,
  ): Promise<ChallengeVerdict>;
}

export interface ChallengeGateOptions {
  config: ChallengeConfig;
  store: BudgetStore;
  now?: () => number;
  /** The HTTP client (tests give none: a fake verifier listens on loopback). */
  fetch?: typeof fetch;
}

export const CHALLENGE_TEXT = {
  required: 'please confirm you are a person before your first message',
  failed: 'that check did not pass: please try it again',
};

/** The refusal a `send` gets before a pass: what the hub sends back (sessions/hub-options.ts `PeerRefusal`). */
export const challengeRequired = (challenge: Challenge) => ({
  code: ErrorCode.ChallengeRequired,
  message: CHALLENGE_TEXT.required,
  more: { challenge },
});

export function createChallengeGate({
  config,
  store,
  now = Date.now,
  fetch: request = fetch,
}: ChallengeGateOptions): ChallengeGate {
  const key = (visitorId: string) => `challenge_passed:${visitorId}`;
  const challenge: Challenge = {
    provider: config.provider,
    siteKey: config.siteKey,
    scriptUrl: config.scriptUrl,
  };
  return {
    challenge,
    async passed(visitorId) {
      // One row per visitor, in a window that starts at 0 and ends when the pass does.
      return (await store.count(key(visitorId), 0)) > 0;
    },
    async verify(token, remoteAddress, visitorId) {
      const body = new URLSearchParams({ secret: config.secret, response: token });
      if (remoteAddress !== undefined) body.set('remoteip', remoteAddress);
      let answer: unknown;
      try {
        const response = await request(config.verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
          signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
        });
        if (!response.ok) return { ok: false, why: `the verifier answered HTTP ${response.status}` };
        answer = await response.json();
      } catch (error) {
        return { ok: false, why: `the verifier could not be asked: ${(error as Error).message}` };
      }
      const { success, 'error-codes': codes } = (answer ?? {}) as {
        success?: unknown;
        'error-codes'?: unknown;
      };
      if (success !== true)
        return {
          ok: false,
          why: `the verifier said no${Array.isArray(codes) ? ` (${codes.join(', ')})` : ''}`,
        };
      if (visitorId !== undefined) await store.add(key(visitorId), 0, 1, now() + CHALLENGE_PASS_MS);
      return { ok: true };
    },
  };
}

/**
 * Whether a visitor may start a turn as far as the challenge goes (a peer's `clearance`):
 * no gate, a signed visitor, or an anonymous one that passed is cleared (undefined);
 * anyone else is refused with `challenge_required`.
 */
export async function challengeClearance(
  gate: ChallengeGate | undefined,
  visitor: { id: string; kind: 'signed' | 'anonymous' } | undefined,
): Promise<ReturnType<typeof challengeRequired> | undefined> {
  if (!gate || visitor?.kind === 'signed') return undefined;
  if (visitor && (await gate.passed(visitor.id))) return undefined;
  return challengeRequired(gate.challenge);
}
