/**
 * The owner's pause switch: while it is on, every new turn is refused with `paused` (the
 * turns already running finish). Kept where the instance's other lasting state is, so
 * that a restart does not quietly resume a chat its owner stopped: a file in the data
 * folder (`paused.json`), or Redis, where every instance reads it on each send so that
 * pausing one pauses them all at once. In memory only without either.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

export interface PauseState {
  paused: boolean;
  /** When it was paused (ms since the epoch); null while running. */
  since: number | null;
  /** What the owner said when pausing, for the status and the log; null without. */
  reason: string | null;
}

export interface PauseSwitch {
  state(): Promise<PauseState>;
  /** Pauses (a switch already paused keeps its first `since`, and takes the new reason). */
  pause(reason: string | undefined, now: number): Promise<PauseState>;
  resume(): Promise<PauseState>;
}

export const RUNNING: PauseState = { paused: false, since: null, reason: null };

/** A reason is the owner's words in a status: short, one line. */
export const MAX_PAUSE_REASON = 200;

const pausedState = (previous: PauseState, reason: string | undefined, now: number): PauseState => ({
  paused: true,
  since: previous.paused ? previous.since : now,
  reason: reason?.replace(/\s+/g, ' ').trim().slice(0, MAX_PAUSE_REASON) || null,
});

/** The state as stored (JSON); anything unreadable is "running", never a crash. */
function parseState(text: string | null): PauseState {
  if (!text) return RUNNING;
  try {
    const value = JSON.parse(text) as Partial<PauseState>;
    if (value.paused !== true || typeof value.since !== 'number') return RUNNING;
    return {
      paused: true,
      since: value.since,
      reason: typeof value.reason === 'string' ? value.reason : null,
    };
  } catch {
    return RUNNING;
  }
}

export class MemoryPauseSwitch implements PauseSwitch {
  protected current: PauseState = RUNNING;

  async state(): Promise<PauseState> {
    return this.current;
  }

  async pause(reason: string | undefined, now: number): Promise<PauseState> {
    this.current = pausedState(this.current, reason, now);
    this.saved();
    return this.current;
  }

  async resume(): Promise<PauseState> {
    this.current = RUNNING;
    this.saved();
    return this.current;
  }

  /** Called after each change. */
  protected saved(): void {}
}

/** The switch in `<dataDir>/paused.json`: read once at start, written (whole, then renamed) on each change. */
export class FilePauseSwitch extends MemoryPauseSwitch {
  readonly #file: string;

  constructor(dataDir: string) {
    super();
    this.#file = join(dataDir, 'paused.json');
    let text: string | null = null;
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch {
      // No file: running.
    }
    this.current = parseState(text);
  }

  protected override saved(): void {
    if (!this.current.paused) {
      rmSync(this.#file, { force: true });
      return;
    }
    const dir = join(this.#file, '..');
    mkdirSync(dir, { recursive: true });
    const temporary = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.current), { mode: 0o600 });
    renameSync(temporary, this.#file);
  }
}

/** The switch in one Redis key, read on every send by every instance. */
export class RedisPauseSwitch implements PauseSwitch {
  constructor(
    private readonly redis: Redis,
    private readonly key = 'aalis:paused',
  ) {}

  async state(): Promise<PauseState> {
    return parseState(await this.redis.get(this.key));
  }

  async pause(reason: string | undefined, now: number): Promise<PauseState> {
    const next = pausedState(await this.state(), reason, now);
    await this.redis.set(this.key, JSON.stringify(next));
    return next;
  }

  async resume(): Promise<PauseState> {
    await this.redis.del(this.key);
    return RUNNING;
  }
}
