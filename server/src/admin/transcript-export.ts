/**
 * A transcript export (`GET /admin/api/transcripts`): every message of a range of UTC
 * days, one line each, as JSON Lines or CSV, streamed as the archive reads it a page at a
 * time, so a month of conversations never sits in memory and a slow download holds back
 * the reading (a Readable's backpressure).
 */
import { Readable } from 'node:stream';
import type { TranscriptLine } from '../history/archive.js';
import type { Logger } from '../util/logger.js';

export type TranscriptFormat = 'jsonl' | 'csv';

const DAY_MS = 86_400_000;
/** The longest range one export covers. */
export const MAX_EXPORT_DAYS = 366;

const COLUMNS = ['sessionId', 'visitorId', 'messageId', 'role', 'createdAt', 'text'] as const;

/**
 * `from` and `to` (YYYY-MM-DD, both included) as the times [start, end); an error for a
 * missing or impossible date, an end before the start, or more than MAX_EXPORT_DAYS.
 */
export function dayRange(
  from: string | undefined,
  to: string | undefined,
): { from: string; to: string; start: number; end: number } | { error: string } {
  const start = dayStart(from);
  const last = dayStart(to);
  if (start === undefined || last === undefined) return { error: 'from and to: dates as YYYY-MM-DD' };
  if (last < start) return { error: 'to: not before from' };
  if ((last - start) / DAY_MS + 1 > MAX_EXPORT_DAYS)
    return { error: `at most ${MAX_EXPORT_DAYS} days in one export` };
  return { from: from!, to: to!, start, end: last + DAY_MS };
}

/** Midnight UTC of a YYYY-MM-DD that names a real day. */
function dayStart(date: string | undefined): number | undefined {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const time = Date.parse(`${date}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over to March: only a day that reads back the same is real.
  return Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== date ? undefined : time;
}

/** The lines as the body of the answer. A failure mid-way ends the download short, logged. */
export function transcriptStream(
  lines: AsyncIterable<TranscriptLine>,
  format: TranscriptFormat,
  logger: Logger,
): Readable {
  async function* text() {
    if (format === 'csv') yield `${COLUMNS.join(',')}\r\n`;
    try {
      for await (const line of lines)
        yield format === 'csv' ? csvRow(line) : `${JSON.stringify(lineJson(line))}\n`;
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'a transcript export failed part-way');
      throw error;
    }
  }
  return Readable.from(text());
}

/** createdAt as an ISO time: what a person and a spreadsheet read. */
const lineJson = (line: TranscriptLine) => ({ ...line, createdAt: new Date(line.createdAt).toISOString() });

function csvRow(line: TranscriptLine): string {
  const json = lineJson(line);
  return `${COLUMNS.map((column) => csvField(json[column] ?? '')).join(',')}\r\n`;
}

/**
 * RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled. A
 * field a spreadsheet would run as a formula (=, +, -, @, a tab or CR first) gets a
 * leading apostrophe: a visitor's text must not become a formula on the owner's machine.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
