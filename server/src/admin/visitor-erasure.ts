/**
 * Erasing a visitor (`DELETE /admin/api/visitors/:visitorId`) or conversations past their
 * retention: from the history (messages, feedback, tool records, uploads), from what the
 * coordination keeps for other instances (Redis), from the budgets (a visitor's counts),
 * and from the tabs that have one open, which leave it.
 */
import type { Budgets } from '../budgets/budgets.js';
import type { ConversationArchive } from '../history/archive.js';
import type { SessionHub } from '../sessions/session-hub.js';
import type { Logger } from '../util/logger.js';

const DAY_MS = 86_400_000;

export class VisitorErasure {
  constructor(
    private readonly archive: ConversationArchive,
    private readonly hub: Pick<SessionHub, 'erased'>,
    private readonly budgets: Pick<Budgets, 'forgetVisitor'> | undefined,
  ) {}

  /** Every conversation `visitorId` owns, and its budgets' counts; returns the sessions erased. */
  async erase(visitorId: string): Promise<string[]> {
    const sessions = await this.archive.eraseVisitor(visitorId);
    const kind = visitorId.startsWith('user:') ? 'signed' : 'anonymous';
    await this.budgets?.forgetVisitor({ id: visitorId, kind });
    await this.hub.erased(sessions);
    return sessions;
  }

  /** The conversations idle for more than `days` at `now`; returns the sessions erased. */
  async eraseIdle(days: number, now: number): Promise<string[]> {
    const sessions = await this.archive.eraseIdle(now - days * DAY_MS);
    await this.hub.erased(sessions);
    return sessions;
  }
}

export interface RetentionOptions {
  erasure: VisitorErasure;
  /** AALIS_RETENTION_DAYS: conversations idle longer are erased. */
  days: number;
  logger: Logger;
  /** How often it looks (an hour). */
  everyMs?: number;
  now?: () => number;
}

export interface Retention {
  /** Erases what is idle too long now; never rejects (a failure is logged). */
  sweep(): Promise<void>;
  stop(): void;
}

/** Erases idle conversations now and then every `everyMs`, until stopped. */
export function scheduleRetention(options: RetentionOptions): Retention {
  const { erasure, days, logger, everyMs = 60 * 60_000, now = Date.now } = options;
  let running: Promise<void> | undefined;
  const sweep = () =>
    // One sweep at a time: a slow database must not pile them up.
    (running ??= erasure
      .eraseIdle(days, now())
      .then(
        (sessions) => {
          if (sessions.length)
            logger.info({ sessions: sessions.length, days }, 'retention: erased conversations idle too long');
        },
        (error: unknown) =>
          logger.error({ err: (error as Error).message }, 'retention: erasing idle conversations failed'),
      )
      .finally(() => (running = undefined)));
  void sweep();
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
