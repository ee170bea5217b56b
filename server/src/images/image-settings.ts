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
  /** Most uploads from one client address per hour (this instance's count). */
  perIpPerHour: number;
}

export const DEFAULT_IMAGE_SETTINGS: ImageSettings = {
  maxBytes: 3_932_160,
  maxCount: 4,
  maxPerSession: 40,
  perIpPerHour: 120,
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

/** An upload never sent with a question is deleted after this long. */
export const ORPHAN_IMAGE_MS = 24 * 60 * 60 * 1000;
