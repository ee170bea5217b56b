/**
 * The console's day stats (`GET /admin/api/stats`): per UTC day, the turns answered, the
 * visitors who asked, tokens (and their cost, where the owner gave prices per model),
 * errors by code, feedback, each tool's calls and failures, and the model's time to its
 * first token (p50, p95). Read from the stored messages and the turns' timings
 * (history/archive.ts) a page at a time; only each day's counts are held, and the
 * first-token times of the range.
 */
import type { ChatMessage, Usage } from '@aalis/protocol';
import type { ConversationArchive } from '../history/archive.js';

/** USD per million tokens, by model name. */
export type ModelPrices = Record<string, { input: number; output: number }>;

export interface DayStats {
  /** YYYY-MM-DD (UTC). */
  date: string;
  turns: number;
  visitors: number;
  tokens: { input: number; output: number };
  /** With prices for the models that answered: what the day's tokens cost, in USD. */
  costUsd?: number;
  errors: Record<string, number>;
  feedback: { up: number; down: number };
  tools: Record<string, { calls: number; failures: number }>;
  /** Null on a day without a timed turn. */
  firstTokenMs: { p50: number | null; p95: number | null };
}

const DAY_MS = 86_400_000;

/** Every day of [start, end) (midnights UTC), in order, each counted. */
export async function dayStats(
  archive: ConversationArchive,
  start: number,
  end: number,
  prices?: ModelPrices,
): Promise<DayStats[]> {
  const days = new Map<number, Day>();
  for (let day = start; day < end; day += DAY_MS) days.set(day, new Day());
  const dayOf = (time: number) => days.get(time - (time % DAY_MS));
  // Each answer's usage, for its cost once its model is known from its timing.
  const usageOf = new Map<string, Usage>();
  for await (const { sessionId, visitorId, message } of archive.messages(start, end)) {
    const day = dayOf(message.createdAt);
    if (!day) continue;
    if (message.role === 'user') day.visitors.add(visitorId ?? `session:${sessionId}`);
    else if (message.role === 'assistant') {
      day.answer(message);
      if (prices && message.usage) usageOf.set(message.id, message.usage);
    }
  }
  for await (const timing of archive.timings(start, end)) {
    const day = dayOf(timing.at);
    if (!day) continue;
    if (timing.firstTokenMs !== null) day.firstTokenMs.push(timing.firstTokenMs);
    const price = timing.model ? prices?.[timing.model] : undefined;
    const usage = usageOf.get(timing.messageId);
    if (price && usage)
      day.costUsd += (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1_000_000;
  }
  return [...days].map(([time, day]) =>
    day.stats(new Date(time).toISOString().slice(0, 10), Boolean(prices)),
  );
}

class Day {
  turns = 0;
  readonly visitors = new Set<string>();
  readonly tokens = { input: 0, output: 0 };
  costUsd = 0;
  readonly errors: Record<string, number> = {};
  readonly feedback = { up: 0, down: 0 };
  readonly tools: Record<string, { calls: number; failures: number }> = {};
  readonly firstTokenMs: number[] = [];

  answer(message: ChatMessage): void {
    this.turns++;
    if (message.usage) {
      this.tokens.input += message.usage.promptTokens;
      this.tokens.output += message.usage.completionTokens;
    }
    if (message.status === 'error') {
      const code = message.error?.code ?? 'unknown';
      this.errors[code] = (this.errors[code] ?? 0) + 1;
    }
    if (message.feedback) this.feedback[message.feedback.rating]++;
    for (const part of message.parts) {
      if (part.type !== 'tool_call') continue;
      const tool = (this.tools[part.name] ??= { calls: 0, failures: 0 });
      tool.calls++;
      // A call the visitor declined did not fail: the tool never ran.
      if (part.status === 'error' && !part.declined) tool.failures++;
    }
  }

  stats(date: string, priced: boolean): DayStats {
    const sorted = [...this.firstTokenMs].sort((a, b) => a - b);
    return {
      date,
      turns: this.turns,
      visitors: this.visitors.size,
      tokens: { ...this.tokens },
      ...(priced ? { costUsd: Math.round(this.costUsd * 1e6) / 1e6 } : {}),
      errors: { ...this.errors },
      feedback: { ...this.feedback },
      tools: { ...this.tools },
      firstTokenMs: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) },
    };
  }
}

/** The nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
