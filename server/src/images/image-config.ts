/**
 * The images' settings: `AALIS_VISION` (whether the model reads images, by default what
 * its provider's usual models do) and the limits (`AALIS_IMAGE_*`), or the configuration
 * file's `images` block. A variable that is set wins over the file.
 */
import { ConfigError, wholeNumber } from '../util/setting-values.js';
import { DEFAULT_IMAGE_SETTINGS, type ImageSettings } from './image-settings.js';

/** The file's `images` block. */
export type ImageFileSettings = Partial<ImageSettings> & { vision?: boolean };

export interface ImageConfig extends ImageSettings {
  /** Set by AALIS_VISION or the file; otherwise the provider's default (`visionByDefault`). */
  vision?: boolean;
}

export const VISION_VARIABLE = 'AALIS_VISION';

/** Each limit: the variable that wins over it, its largest value, and what it is (for --help). */
export const IMAGE_VARIABLES: Array<
  [key: keyof ImageSettings, variable: string, max: number, meaning: string]
> = [
  ['maxBytes', 'AALIS_IMAGE_MAX_BYTES', 20 * 1024 * 1024, 'largest image a visitor may attach, in bytes'],
  ['maxCount', 'AALIS_IMAGE_MAX_COUNT', 16, 'most images one message may carry'],
  ['maxPerSession', 'AALIS_IMAGE_MAX_PER_SESSION', 10_000, 'most images one conversation may upload'],
  [
    'perIpPerHour',
    'AALIS_IMAGE_IP_PER_HOUR',
    1_000_000,
    'most image uploads from one client address per hour',
  ],
];

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

type Env = Record<string, string | undefined>;

export function loadImageConfig(env: Env, file: ImageFileSettings = {}): ImageConfig {
  const settings = { ...DEFAULT_IMAGE_SETTINGS };
  for (const [key, variable, max] of IMAGE_VARIABLES) {
    settings[key] = wholeNumber(env, variable, file[key] ?? DEFAULT_IMAGE_SETTINGS[key], { max });
  }
  const vision = visionOf(env[VISION_VARIABLE]?.trim()) ?? file.vision;
  return { ...settings, ...(vision === undefined ? {} : { vision }) };
}

function visionOf(text: string | undefined): boolean | undefined {
  if (!text) return undefined;
  if (text === 'on') return true;
  if (text === 'off') return false;
  throw new ConfigError(`${VISION_VARIABLE} must be on or off; it is "${text}"`);
}
