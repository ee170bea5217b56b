/**
 * What a stdio MCP server writes to its stderr: passed on line by line (to the log, at
 * debug level), and its last lines kept, to say why the server failed or stopped (npm's
 * reason is several lines above its last one, "A complete log of this run ..."). Bounded
 * whatever the server writes: a line is cut at `maxLineChars`, and only the last
 * `keepLines` lines, `maxChars` characters in all, are kept.
 */
import { StringDecoder } from 'node:string_decoder';

export interface StderrTailOptions {
  maxLineChars?: number;
  keepLines?: number;
  maxChars?: number;
}

export class StderrTail {
  readonly #onLine: (line: string) => void;
  readonly #maxLineChars: number;
  readonly #keepLines: number;
  readonly #maxChars: number;
  // A chunk may end inside a multi-byte character.
  readonly #decoder = new StringDecoder('utf8');
  readonly #lines: string[] = [];
  #chars = 0;
  #partial = '';
  /** The current line was already cut and passed on: the rest of it is dropped. */
  #skipping = false;

  constructor(onLine: (line: string) => void, options: StderrTailOptions = {}) {
    this.#onLine = onLine;
    this.#maxLineChars = options.maxLineChars ?? 1_000;
    this.#keepLines = options.keepLines ?? 20;
    this.#maxChars = options.maxChars ?? 4_096;
  }

  write(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    const pieces = text.split('\n');
    pieces.forEach((piece, index) => {
      const ended = index < pieces.length - 1;
      if (!this.#skipping) this.#partial += piece;
      if (!this.#skipping && this.#partial.length > this.#maxLineChars) {
        this.#emit(`${this.#partial.slice(0, this.#maxLineChars)}…`);
        this.#partial = '';
        this.#skipping = true;
      }
      if (ended) {
        if (!this.#skipping) this.#emit(this.#partial);
        this.#partial = '';
        this.#skipping = false;
      }
    });
  }

  /** The last lines, oldest first, with the unfinished one, within the bounds. */
  get lines(): string[] {
    const unfinished = !this.#skipping && this.#partial.trim() !== '' ? [this.#partial.trimEnd()] : [];
    const lines = [...this.#lines, ...unfinished].slice(-this.#keepLines);
    let chars = lines.reduce((sum, line) => sum + line.length, 0);
    while (lines.length > 1 && chars > this.#maxChars) chars -= lines.shift()!.length;
    return lines;
  }

  #emit(line: string): void {
    const trimmed = line.replace(/\r$/, '');
    if (trimmed.trim() === '') return;
    this.#lines.push(trimmed);
    this.#chars += trimmed.length;
    while (this.#lines.length > 1 && (this.#lines.length > this.#keepLines || this.#chars > this.#maxChars))
      this.#chars -= this.#lines.shift()!.length;
    this.#onLine(trimmed);
  }
}
