/**
 * What visitors may attach: how large an image, how many per question, per conversation
 * and per address. Every limit guards the disk and the model budget of a public site
 * against a page that uploads in a loop.
 */
import { ImageMimeTypeSchema, type ImageMimeType } from '@aalis/protocol';

export interface ImageSettings {
  /**
   * Largest image, in bytes: 3.75 MiB by default, which is 5 MB as base64, Anthropic's
   * limit per image (OpenAI takes 20 MB).
   */
  maxBytes: number;
  /** Most images one question names. */
  maxCount: number;
  /** Most images one conversation may upload, sent or not. */
  maxPerSession: number;
  /**
   * Most uploads from one client address (an IPv6 address's /64) per clock hour, every
   * attempt counted, in the counter store every instance shares (the budgets').
   */
  perIpPerHour: number;
  /** Most bytes of images one client address may store per clock hour, shared likewise; 0: no limit. */
  perIpBytesPerHour: number;
  /**
   * Most bytes of uploads no question named yet, on the whole server (the history store's
   * total): an upload that would pass it is refused with 507 `storage_full`.
   */
  maxUnsentBytes: number;
}

export const DEFAULT_IMAGE_SETTINGS: ImageSettings = {
  maxBytes: 3_932_160,
  maxCount: 4,
  maxPerSession: 40,
  perIpPerHour: 120,
  // About ten images at the size cap: a visitor's questions, not a disk's worth.
  perIpBytesPerHour: 40 * 1024 * 1024,
  maxUnsentBytes: 512 * 1024 * 1024,
};

/** The types every provider here reads (PNG, JPEG, WebP, and GIF's first frame). */
export const IMAGE_TYPES: readonly ImageMimeType[] = ImageMimeTypeSchema.options;

/**
 * What a turn shows the model of the conversation's images, newest first: at most this
 * many, and this many bytes together (Anthropic's requests stop at 32 MB; base64 adds a
 * third). Older images are named in their question's text instead.
 */
export const CONTEXT_IMAGES = { count: 20, bytes: 16 * 1024 * 1024 };

/** How long an upload ticket lasts: a page open longer gets a new one with its next hello. */
export const TICKET_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * An upload no question named is deleted after this long: a visitor attaches an image to
 * the question they are writing, so an hour is plenty, and unsent uploads never sit on
 * the disk for long (the sweep runs every UNSENT_SWEEP_MS, so one lives at most both).
 */
export const UNSENT_IMAGE_MS = 60 * 60 * 1000;

/** How often unsent uploads older than UNSENT_IMAGE_MS are looked for and deleted. */
export const UNSENT_SWEEP_MS = 10 * 60 * 1000;

/** Longest side accepted, in pixels: Anthropic refuses larger images. */
export const MAX_SIDE = 8_000;

/**
 * Most pixels accepted (40 megapixels, 8,000 × 5,000): what bounds the work of checking a
 * PNG's image data (at most 8 bytes a pixel inflated, about 320 MB streamed and counted).
 * Providers scale images down to a megapixel or two anyway, so a larger one buys nothing.
 */
export const MAX_PIXELS = 40_000_000;
