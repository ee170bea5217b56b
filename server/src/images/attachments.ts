/**
 * Whether a server takes images, and with what: on when its model reads them (`vision`,
 * by default the provider's, image-config.ts) unless turned off, with the limits and the
 * upload tickets every `ready` of it carries.
 */
import type { Uploads } from '@aalis/protocol';
import type { AnonymousKeySource } from '../identity/anonymous-key.js';
/** What the hub needs of the image uploads (see `SessionHubOptions.images`). */
export interface ImageAttachments {
  maxCount: number;
  /** `ready.uploads` for a session: a fresh ticket, and the limits. */
  uploadsFor(sessionId: string): Uploads;
}

import { VISION_BY_DEFAULT } from './image-config.js';
import {
  DEFAULT_IMAGE_SETTINGS,
  IMAGE_TYPES,
  TICKET_LIFETIME_MS,
  type ImageSettings,
} from './image-settings.js';
import { createUploadTickets, type UploadTickets } from './upload-ticket.js';

/** The plugin's `images` option. */
export interface ImageOptions extends Partial<ImageSettings> {
  /** Whether the model reads images; by default what the provider's usual models do. */
  vision?: boolean;
  /**
   * What upload tickets are signed with (every instance must share it): by default the
   * visitor identity's secret or data directory, as for anonymous visitor keys.
   */
  keys?: AnonymousKeySource;
}

export interface ImageSetup extends ImageAttachments {
  settings: ImageSettings;
  tickets: UploadTickets;
}

export function imageSetupOf(
  options: ImageOptions | false | undefined,
  providerName: string,
  fallbackKeys: AnonymousKeySource,
  now: () => number = Date.now,
): ImageSetup | undefined {
  if (options === false) return undefined;
  const { vision = VISION_BY_DEFAULT[providerName] ?? false, keys = fallbackKeys, ...limits } = options ?? {};
  if (!vision) return undefined;
  const settings: ImageSettings = { ...DEFAULT_IMAGE_SETTINGS, ...limits };
  const tickets = createUploadTickets(keys, TICKET_LIFETIME_MS);
  return {
    settings,
    tickets,
    maxCount: settings.maxCount,
    uploadsFor: (sessionId): Uploads => ({
      ...tickets.issue(sessionId, now()),
      maxBytes: settings.maxBytes,
      maxCount: settings.maxCount,
      types: [...IMAGE_TYPES],
    }),
  };
}
