/**
 * Where one instance keeps the answers its history could not store yet (the database is
 * down, the disk is full): one small JSON file per answer in `<dataDir>/unsaved/`, so
 * that an answer a visitor watched being written outlives a crash of the server while
 * the history is away. The next start stores them first (sessions/answer-keeper.ts).
 *
 * Each file is written whole or not at all (a temporary file, fsync, rename, fsync of
 * the folder): a crash mid-write leaves a `.tmp` file, which the next start deletes,
 * never half an answer. When the spool's own disk refuses (the same full disk that made
 * the history fail), the answer is kept in memory instead, said once in the log: it is
 * still stored as soon as the history can take it, and only a crash before then loses it.
 * Without a data folder (history in memory) every answer is kept in memory.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatMessage } from '@aalis/protocol';
import type { Logger } from '../util/logger.js';

/**
 * An answer waiting to be stored, under its session and its turn (the question's id):
 * what every keeper holds (sessions/answer-keeper.ts, as `KeptAnswer`).
 */
export interface SpooledAnswer {
  sessionId: string;
  turnId: string;
  message: ChatMessage;
  /** When it was first kept (ms). */
  keptAt: number;
}

const SPOOL_FOLDER = 'unsaved';

export class AnswerSpool {
  /** Every answer kept, whether its file was written or not. */
  readonly #answers = new Map<string, SpooledAnswer>();
  /** The keys of those with a file. */
  readonly #onDisk = new Set<string>();
  readonly #dir: string | undefined;
  readonly #logger: Pick<Logger, 'warn' | 'error'> | undefined;
  /** Set once a write failed, until one succeeds: the log says it once, not per answer. */
  #diskRefused = false;

  /**
   * `dataDir`: the server's data folder (the spool is its `unsaved/` folder, read now);
   * without it, answers are kept in memory.
   */
  constructor(options: { dataDir?: string | undefined; logger?: Pick<Logger, 'warn' | 'error'> } = {}) {
    this.#dir = options.dataDir === undefined ? undefined : join(options.dataDir, SPOOL_FOLDER);
    this.#logger = options.logger;
    if (this.#dir) this.#load(this.#dir);
  }

  /** The folder the files are in; undefined when answers are kept in memory only. */
  get dir(): string | undefined {
    return this.#dir;
  }

  /** Keeps the answer: on disk when it can, else in memory (logged once). Never rejects. */
  async keep(answer: SpooledAnswer): Promise<void> {
    const key = keptAnswerKey(answer.sessionId, answer.turnId);
    this.#answers.set(key, answer);
    if (!this.#dir) return;
    try {
      await writeWhole(this.#dir, fileOf(key), JSON.stringify(answer));
      this.#diskRefused = false;
      // Taken while it was being written (stored already): the file goes too.
      if (this.#answers.get(key) === answer) this.#onDisk.add(key);
      else await rm(join(this.#dir, fileOf(key)), { force: true });
    } catch (error) {
      if (!this.#diskRefused)
        this.#logger?.error(
          { err: error, dir: this.#dir },
          'the answer spool cannot write: kept answers are held in memory until the history takes them',
        );
      this.#diskRefused = true;
    }
  }

  /** The answer kept for the turn, no longer kept; undefined when there is none. */
  async take(sessionId: string, turnId: string): Promise<SpooledAnswer | undefined> {
    const key = keptAnswerKey(sessionId, turnId);
    const answer = this.#answers.get(key);
    if (!answer) return undefined;
    this.#answers.delete(key);
    if (this.#onDisk.delete(key) && this.#dir) {
      try {
        await rm(join(this.#dir, fileOf(key)), { force: true });
      } catch (error) {
        // The next start finds it and stores it again: its turn is fenced then, so no harm.
        this.#logger?.warn(
          { err: error, dir: this.#dir },
          'a stored answer could not be removed from the spool',
        );
      }
    }
    return answer;
  }

  /** The answers kept, of one session or of all, oldest first. */
  async list(sessionId?: string): Promise<SpooledAnswer[]> {
    const all = [...this.#answers.values()];
    const some = sessionId === undefined ? all : all.filter((answer) => answer.sessionId === sessionId);
    return some.sort((a, b) => a.keptAt - b.keptAt);
  }

  /** The files a previous run left: each one an answer still to store. */
  #load(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names) {
      const path = join(dir, name);
      // A write that a crash cut short: its answer was never kept whole.
      if (name.endsWith('.tmp')) {
        rmSync(path, { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const answer = JSON.parse(readFileSync(path, 'utf8')) as SpooledAnswer;
        const key = keptAnswerKey(answer.sessionId, answer.turnId);
        this.#answers.set(key, answer);
        this.#onDisk.add(key);
      } catch (error) {
        // Left in place for the owner to look at; the others are stored.
        this.#logger?.error(
          { err: error, path },
          'a file in the answer spool cannot be read: it is left there',
        );
      }
    }
  }
}

/** One answer's key in every keeper (this spool's map, the background retries, the Redis hash's field). */
export const keptAnswerKey = (sessionId: string, turnId: string) => `${sessionId} ${turnId}`;

/** A name safe on every filesystem whatever the ids hold; the file itself says whose answer it is. */
const fileOf = (key: string) => `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`;

/**
 * Writes `text` as `dir/name`, whole or not at all: into a temporary file, flushed to the
 * disk, renamed over the name, and the folder flushed, so that the rename itself survives
 * a power cut. The file is readable by the server's user only: it is a conversation.
 */
async function writeWhole(dir: string, name: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `${name}.tmp`);
  try {
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, join(dir, name));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
