/**
 * Deletes the uploads no question named within UNSENT_IMAGE_MS (a question never sent, an
 * image removed before sending, a tab closed), and forgets the counter windows that
 * ended (the upload counts', and the budgets'): once at start, awaited, so that a server
 * starts with the unsent total its cap counts already cleared of stale uploads, then every
 * UNSENT_SWEEP_MS on a timer that keeps no process alive, until the app closes.
 */
import type { FastifyInstance } from 'fastify';
import type { BudgetStore } from '../budgets/budget-store.js';
import type { HistoryStore } from '../history/store.js';
import { UNSENT_IMAGE_MS, UNSENT_SWEEP_MS } from '../images/image-settings.js';

export interface UnsentSweepOptions {
  store: HistoryStore;
  counters: BudgetStore;
  now: () => number;
  log: FastifyInstance['log'];
}

/** Sweeps now, then every UNSENT_SWEEP_MS; returns the timer, for `clearInterval` at close. */
export async function sweepUnsentImages({
  store,
  counters,
  now,
  log,
}: UnsentSweepOptions): Promise<NodeJS.Timeout> {
  const sweep = async () => {
    const at = now();
    await Promise.all([
      store.dropOrphanImages(at - UNSENT_IMAGE_MS).then(
        (dropped) => dropped && log.info({ dropped }, 'images never sent were deleted'),
        (error: unknown) => log.error({ err: error }, 'deleting images never sent failed'),
      ),
      counters
        .prune(at)
        .catch((error: unknown) => log.error({ err: error }, 'forgetting ended upload counts failed')),
    ]);
  };
  await sweep();
  const timer = setInterval(() => void sweep(), UNSENT_SWEEP_MS);
  timer.unref();
  return timer;
}
