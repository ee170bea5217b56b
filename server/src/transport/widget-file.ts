/**
 * The widget's script-tag build, served at /aalis-chat.js so that a page on any origin
 * can load it with one script tag, and the parts it loads itself from next to it
 * (`WIDGET_PARTS`: marked, at /aalis-chat-marked.js; the bot challenge's provider code, at
 * /aalis-chat-challenge-provider.js; an MCP server's form and an MCP App's host; the views
 * most chats never show, such as approval cards). Read from disk when asked (and kept while
 * unchanged), so a rebuilt widget is served without a restart.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzipAsync = promisify(zlib.gzip);
const brotliAsync = promisify(zlib.brotliCompress);

/** The file in each encoding it is served in, made once per version of the file. */
export interface WidgetAsset {
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  /** Of the uncompressed bytes; each encoding's ETag adds its name (`"…-br"`). */
  etag: string;
}

export type WidgetEncoding = 'br' | 'gzip' | 'identity';

/** Where `npm run build -w @aalis/widget` puts the file, when the widget is installed. */
export function defaultWidgetFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@aalis/widget/aalis-chat.js');
  } catch {
    return undefined;
  }
}

/**
 * The files aalis-chat.js loads from its own directory: marked when it starts, the
 * challenge's part when a server asks for a bot challenge.
 */
// In the order the built script names them: an MCP server's form and an MCP App are
// loaded only when a chat shows one, and so is each view (the visitor's conversation list,
// approval cards, the handoff's button and line, the comment after a thumb, the versions'
// switcher and edit form).
export const WIDGET_PARTS = [
  'aalis-chat-conversations-view.js',
  'aalis-chat-elicitation-element.js',
  'aalis-chat-marked.js',
  'aalis-chat-mcp-app-element.js',
  'aalis-chat-challenge-provider.js',
  'aalis-chat-approval-cards.js',
  'aalis-chat-handoff-view.js',
  'aalis-chat-feedback-form.js',
  'aalis-chat-versions-view.js',
] as const;

export class WidgetFile {
  #cached: { mtimeMs: number; asset: WidgetAsset } | undefined;

  constructor(readonly path: string | undefined) {}

  /** A file built next to this one (one of WIDGET_PARTS). */
  sibling(name: string): WidgetFile {
    return new WidgetFile(this.path && join(dirname(this.path), name));
  }

  /** Whether the file is there to serve (without reading it). */
  async exists(): Promise<boolean> {
    if (!this.path) return false;
    return stat(this.path).then(
      () => true,
      () => false,
    );
  }

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
      // Compressed once per build, at the strongest settings: every page load after that
      // gets about a third of the bytes for nothing.
      const [gzip, br] = await Promise.all([
        gzipAsync(body, { level: 9 }),
        brotliAsync(body, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        }),
      ]);
      this.#cached = { mtimeMs, asset: { body, gzip, br, etag } };
    }
    return this.#cached.asset;
  }
}

/**
 * The encoding to answer with: brotli, then gzip, when the request accepts it (and did
 * not refuse it with `q=0`); else the plain file.
 */
export function chooseEncoding(acceptEncoding: string | undefined): WidgetEncoding {
  const accepted = new Map<string, number>();
  for (const entry of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = entry.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wants = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (wants('br')) return 'br';
  if (wants('gzip')) return 'gzip';
  return 'identity';
}
