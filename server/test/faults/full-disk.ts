/**
 * A real filesystem that fills up: a small tmpfs mounted for the test (root only; the
 * test machines run as root). SQLite on it meets ENOSPC / SQLITE_FULL the way it would
 * on a full disk in production, with no mock between.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Writes a file that takes every byte still free but `leaveBytes`. */
  fill(leaveBytes?: number): void;
  /** Frees what `fill` took. */
  free(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `bytes`; the reason instead where mounting is not allowed. */
export function mountSmallDisk(bytes: number): SmallDisk | string {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill: (leaveBytes = 0) => {
      // Written in pieces until the filesystem refuses: exactly what is free gets taken.
      const piece = Buffer.alloc(4 * 1024, 1);
      try {
        for (;;) writeFileSync(filler, piece, { flag: 'a' });
      } catch {
        // ENOSPC: full.
      }
      if (leaveBytes > 0) truncateSync(filler, Math.max(0, statSync(filler).size - leaveBytes));
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
