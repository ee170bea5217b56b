/**
 * What a stdio MCP server writes to its stderr: passed on line by line (to the log, at
 * debug level), and its last few lines kept, to say why the server failed or stopped.
 * Bounded whatever the server writes: a line is cut at `maxLineChars`, and only
 * `keepLines` lines are kept.
 */
import { StringDecoder } from 'node:string_decoder';

export interface StderrTailOptions {
  maxLineChars?: number;
  keepLines?: number;
}

export class StderrTail {
  readonly #onLine: (line: string) => void;
  readonly #maxLineChars: number;
  readonly #keepLines: number;
  // A chunk may end inside a multi-byte character.
  readonly #decoder = new StringDecoder('utf8');
  readonly #lines: string[] = [];
  #partial = '';
  /** The current line was already cut and passed on: the rest of it is dropped. */
  #skipping = false;

  constructor(onLine: (line: string) => void, options: StderrTailOptions = {}) {
    this.#onLine = onLine;
    this.#maxLineChars = options.maxLineChars ?? 1_000;
    this.#keepLines = options.keepLines ?? 10;
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

  /** The last lines, oldest first, with the unfinished one. */
  get lines(): string[] {
    const unfinished = !this.#skipping && this.#partial.trim() !== '' ? [this.#partial] : [];
    return [...this.#lines, ...unfinished].slice(-this.#keepLines);
  }

  #emit(line: string): void {
    const trimmed = line.replace(/\r$/, '');
    if (trimmed.trim() === '') return;
    this.#lines.push(trimmed);
    if (this.#lines.length > this.#keepLines) this.#lines.shift();
    this.#onLine(trimmed);
  }
}
