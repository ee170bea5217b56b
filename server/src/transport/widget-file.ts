/**
 * The widget's single-file build, served at /aalis-chat.js so that a page on any origin
 * can load it with one script tag. Read from disk when asked (and kept while unchanged),
 * so a rebuilt widget is served without a restart.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';

export interface WidgetAsset {
  body: Buffer;
  etag: string;
}

/** Where `npm run build -w @aalis/widget` puts the file, when the widget is installed. */
export function defaultWidgetFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@aalis/widget/aalis-chat.js');
  } catch {
    return undefined;
  }
}

export class WidgetFile {
  #cached: { mtimeMs: number; asset: WidgetAsset } | undefined;

  constructor(readonly path: string | undefined) {}

  /** The file, or undefined when it has not been built. */
  async load(): Promise<WidgetAsset | undefined> {
    if (!this.path) return undefined;
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(this.path)).mtimeMs;
    } catch {
      return undefined;
    }
    if (this.#cached?.mtimeMs !== mtimeMs) {
      const body = await readFile(this.path);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      this.#cached = { mtimeMs, asset: { body, etag } };
    }
    return this.#cached.asset;
  }
}
