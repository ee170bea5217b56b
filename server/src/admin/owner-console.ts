/**
 * The site owner's routes, on when AALIS_ADMIN_TOKEN is set (without it, every `/admin`
 * route answers 404, as any route that does not exist): the pause switch, and the
 * console, its page and the JSON API the page uses, over the history's archive
 * (history/archive.ts). One access check (owner-access.ts) guards them all.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Budgets } from '../budgets/budgets.js';
import type { PauseSwitch } from '../budgets/pause-switch.js';
import { archiveOf } from '../history/archive-of.js';
import type { HistoryStore } from '../history/store.js';
import type { SessionHub } from '../sessions/session-hub.js';
import type { ChatEvents } from '../transport/chat-events.js';
import type { Logger } from '../util/logger.js';
import { registerConsoleApi } from './console-api.js';
import { defaultConsoleFile, registerConsolePage } from './console-page.js';
import { WidgetFile } from '../transport/widget-file.js';
import type { ModelPrices } from './day-stats.js';
import { OwnerAccess } from './owner-access.js';
import { registerAdminRoutes } from './pause-routes.js';
import { scheduleRetention, VisitorErasure } from './visitor-erasure.js';

export interface OwnerConsoleOptions {
  /** AALIS_ADMIN_TOKEN; without it there is no console (retention still runs). */
  adminToken: string | undefined;
  /** AALIS_RETENTION_DAYS: conversations idle longer are erased, checked hourly; 0 or none keeps them. */
  retentionDays: number | undefined;
  store: HistoryStore;
  hub: SessionHub;
  budgets: Budgets | undefined;
  pause: PauseSwitch;
  /** Where turns are heard ending: their timings are kept for the stats. */
  events: ChatEvents;
  /** The model that answers (the stats' cost looks its price up by it); null when an agent answers. */
  model: string | null;
  /** USD per million tokens by model: the stats' `costUsd`. */
  prices: ModelPrices | undefined;
  /** The client's address, behind the proxies the server trusts. */
  addressOf(request: FastifyRequest): string;
  guarded: onRequestHookHandler[];
  logger: Logger;
}

/** Registers what is configured; returns what stops the retention's sweeps. */
export function registerOwnerConsole(app: FastifyInstance, options: OwnerConsoleOptions): () => void {
  const { adminToken, retentionDays, store, hub, budgets, logger } = options;
  const access = adminToken && new OwnerAccess({ adminToken, addressOf: options.addressOf });
  if (access) registerAdminRoutes(app, { access, pause: options.pause, guarded: options.guarded });
  if (!adminToken && !retentionDays) return () => {};
  const archive = archiveOf(store);
  if (!archive) {
    logger.warn(
      {},
      'this history store has no archive: the owner console and the retention (AALIS_RETENTION_DAYS) are off',
    );
    return () => {};
  }
  const erasure = new VisitorErasure(archive, hub, budgets);
  if (access) {
    registerConsolePage(app, { consoleFile: new WidgetFile(defaultConsoleFile()), guarded: options.guarded });
    registerConsoleApi(app, {
      access,
      archive,
      erasure,
      hub,
      store,
      guarded: options.guarded,
      ...(options.prices ? { prices: options.prices } : {}),
    });
    const { model } = options;
    options.events.on('turn:ended', ({ sessionId, messageId, firstChunkMs }) =>
      archive
        .recordTurn({ sessionId, messageId, at: Date.now(), firstTokenMs: firstChunkMs, model })
        .catch((error: unknown) =>
          logger.warn({ err: (error as Error).message }, "a turn's timing could not be kept for the stats"),
        ),
    );
  }
  if (!retentionDays) return () => {};
  const retention = scheduleRetention({ erasure, days: retentionDays, logger });
  return () => retention.stop();
}
