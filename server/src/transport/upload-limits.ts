/**
 * What one client address may upload per clock hour: how many uploads (every attempt
 * that reaches the body, counted when it arrives) and how many bytes of images stored
 * (counted just before an image is stored). Both are kept in the counter store of the
 * budgets (budgets/budget-store.ts: SQLite beside the history, or Redis shared by every
 * instance), in fixed windows, so that neither a restart nor another instance forgives
 * anything: a page that uploads in a loop meets the same count wherever it lands.
 *
 * Each count is added first and compared after, then taken back when it went over: two
 * requests at once cannot both slip under the limit, as a read-then-write would let them.
 * When the store cannot be reached the upload is let through and the failure logged, as
 * the budgets do with sends; the cap on unsent bytes still holds the disk.
 */
import type { BudgetStore } from '../budgets/budget-store.js';
import { FixedWindow } from '../budgets/fixed-window.js';

const HOUR_MS = 60 * 60 * 1000;

/** Let through, or refused by one of the two counts until the window ends (`retryInMs`). */
export type UploadVerdict = { ok: true } | { ok: false; limit: 'uploads' | 'bytes'; retryInMs: number };

export interface UploadLimitsOptions {
  counters: BudgetStore;
  /** Uploads per address and hour (at least 1). */
  perHour: number;
  /** Bytes stored per address and hour; 0 for no limit. */
  bytesPerHour: number;
  now: () => number;
  onError: (error: unknown, what: string) => void;
}

export interface UploadLimits {
  /**
   * An upload from `address` (already in its counting form: an IPv6 address's /64) that
   * announces `announcedBytes`: counted, or refused before its body is read when it is
   * over the count, or its announced length cannot fit in the bytes left.
   */
  arriving(address: string, announcedBytes: number): Promise<UploadVerdict>;
  /** An image of `bytes` about to be stored: counted, or refused when it would pass the bytes per hour. */
  storing(address: string, bytes: number): Promise<UploadVerdict>;
}

const OK = { ok: true } as const;

export function uploadLimits({
  counters,
  perHour,
  bytesPerHour,
  now,
  onError,
}: UploadLimitsOptions): UploadLimits {
  const uploads = new FixedWindow('image_uploads', HOUR_MS, counters);
  const bytes = new FixedWindow('image_bytes', HOUR_MS, counters);
  const refused = (window: FixedWindow, at: number): UploadVerdict => ({
    ok: false,
    limit: window === uploads ? 'uploads' : 'bytes',
    retryInMs: window.window(at).endsInMs,
  });

  /** Adds `amount`; when the total passes `limit`, takes it back and refuses. */
  const take = async (window: FixedWindow, address: string, amount: number, limit: number, at: number) => {
    const total = await window.add(address, amount, at);
    if (total <= limit) return OK;
    await window.add(address, -amount, at);
    return refused(window, at);
  };
  const failOpen = (error: unknown, what: string) => {
    onError(error, what);
    return OK;
  };

  return {
    async arriving(address, announcedBytes) {
      const at = now();
      try {
        if (bytesPerHour > 0 && (await bytes.used(address, at)) + announcedBytes > bytesPerHour)
          return refused(bytes, at);
        return await take(uploads, address, 1, perHour, at);
      } catch (error) {
        return failOpen(error, 'counting an upload failed: it was let through');
      }
    },
    async storing(address, stored) {
      if (bytesPerHour <= 0) return OK;
      const at = now();
      return take(bytes, address, stored, bytesPerHour, at).catch((error: unknown) =>
        failOpen(error, 'counting the bytes of an upload failed: it was let through'),
      );
    },
  };
}
