/**
 * The images' configuration: whether the model reads images (by default what its
 * provider's usual models do) and the limits. Read from `AALIS_VISION`, `AALIS_IMAGE_*`
 * and the configuration file's `images` block by config/load-values.ts.
 */
import type { ImageSettings } from './image-settings.js';

/** The file's `images` block. */
export type ImageFileSettings = Partial<ImageSettings> & { vision?: boolean };

export interface ImageConfig extends ImageSettings {
  /** Set by AALIS_VISION or the file; otherwise the provider's default (`visionByDefault`). */
  vision?: boolean;
}

/**
 * Whether a provider's models read images unless told otherwise: OpenAI's and
 * Anthropic's current models do; DeepSeek's chat models do not; an Ollama model does only
 * if it is a vision model (llava, gemma3, ...), so it is off until AALIS_VISION=on. The
 * demo model answers with what it was sent.
 */
export const VISION_BY_DEFAULT: Readonly<Record<string, boolean>> = {
  openai: true,
  'openai-responses': true,
  anthropic: true,
  demo: true,
  deepseek: false,
  ollama: false,
};
