/**
 * A session's in-memory files, written by the write_file tool. Bounded in file count
 * and size so that a model cannot fill the server's memory.
 */
import { ToolError } from './tool-error.js';

export interface WorkspaceLimits {
  maxFiles: number;
  maxFileChars: number;
}

export const defaultWorkspaceLimits: WorkspaceLimits = { maxFiles: 50, maxFileChars: 200_000 };

export class Workspace {
  readonly #files = new Map<string, { content: string; updatedAt: number }>();

  constructor(readonly limits: WorkspaceLimits = defaultWorkspaceLimits) {}

  write(path: string, content: string, now = Date.now()): { path: string; chars: number; created: boolean } {
    const clean = normalisePath(path);
    if (content.length > this.limits.maxFileChars) {
      throw new ToolError(
        `${clean} is ${content.length} characters; the limit is ${this.limits.maxFileChars}`,
      );
    }
    const created = !this.#files.has(clean);
    if (created && this.#files.size >= this.limits.maxFiles) {
      throw new ToolError(`the workspace already holds ${this.limits.maxFiles} files, its limit`);
    }
    this.#files.set(clean, { content, updatedAt: now });
    return { path: clean, chars: content.length, created };
  }

  read(path: string): string | undefined {
    return this.#files.get(normalisePath(path))?.content;
  }

  /** Removes a file; false when there was none. */
  remove(path: string): boolean {
    return this.#files.delete(normalisePath(path));
  }

  list(): Array<{ path: string; chars: number; updatedAt: number }> {
    return [...this.#files.entries()]
      .map(([path, file]) => ({ path, chars: file.content.length, updatedAt: file.updatedAt }))
      .sort((a, b) => a.path.localeCompare(b.path));
  }
}

/**
 * One workspace per session, made on first use. Bounded: past `maxSessions` the
 * workspace used longest ago is dropped (its files were only ever kept in memory).
 */
export class Workspaces {
  readonly #bySession = new Map<string, Workspace>();

  constructor(
    private readonly limits: WorkspaceLimits = defaultWorkspaceLimits,
    private readonly maxSessions = 1_000,
  ) {}

  for(sessionId: string): Workspace {
    let workspace = this.#bySession.get(sessionId);
    // Re-inserting keeps the Map in least-recently-used order.
    if (workspace) this.#bySession.delete(sessionId);
    else workspace = new Workspace(this.limits);
    this.#bySession.set(sessionId, workspace);
    if (this.#bySession.size > this.maxSessions) this.#bySession.delete(this.#bySession.keys().next().value!);
    return workspace;
  }
}

/** `a/./b//c.md` -> `a/b/c.md`; no absolute paths, no `..`, no empty names. */
function normalisePath(path: string): string {
  const segments = path.split(/[\\/]+/).filter((s) => s && s !== '.');
  if (!segments.length) throw new ToolError('the path is empty');
  if (segments.includes('..')) throw new ToolError('the path may not contain ".."');
  const clean = segments.join('/');
  if (clean.length > 200) throw new ToolError('the path is longer than 200 characters');
  return clean;
}
