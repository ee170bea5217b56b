/**
 * The answers the history could not store yet, kept in Redis when several instances share
 * the sessions (sessions/answer-keeper.ts): whichever instance starts next, or ends the
 * turn of one that died, finds them there and stores them. One hash, `<prefix>unsaved`,
 * field `<sessionId> <turnId>`, the answer's JSON; no expiry: an answer leaves only once
 * stored (or fenced). A single key, so it lives in one slot of a Redis Cluster too.
 *
 * Redis may be down as well (the same outage): an answer it cannot take is held in this
 * instance's memory instead, said once in the log, and stored from there like the others.
 */
import type { Redis } from 'ioredis';
import { keptAnswerKey } from '../history/answer-spool.js';
import type { AnswerKeeper, KeptAnswer } from '../sessions/answer-keeper.js';
import type { Logger } from '../util/logger.js';

export class RedisAnswerKeeper implements AnswerKeeper {
  readonly #key: string;
  /** Answers Redis refused, by field. */
  readonly #memory = new Map<string, KeptAnswer>();
  /** Set once a write failed, until one succeeds: the log says it once. */
  #refused = false;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Pick<Logger, 'error'>,
    prefix = 'aalis:',
  ) {
    this.#key = `${prefix}unsaved`;
  }

  async keep(answer: KeptAnswer): Promise<void> {
    const field = keptAnswerKey(answer.sessionId, answer.turnId);
    try {
      await this.redis.hset(this.#key, field, JSON.stringify(answer));
      this.#memory.delete(field);
      this.#refused = false;
    } catch (error) {
      this.#memory.set(field, answer);
      if (!this.#refused)
        this.logger.error(
          { err: error },
          'Redis cannot keep an unsaved answer: this instance holds it in memory until the history takes it',
        );
      this.#refused = true;
    }
  }

  async take(sessionId: string, turnId: string): Promise<KeptAnswer | undefined> {
    const field = keptAnswerKey(sessionId, turnId);
    // One transaction: of two instances taking the same answer, one gets it.
    const replies = await this.redis.multi().hget(this.#key, field).hdel(this.#key, field).exec();
    const [failed, json] = replies?.[0] ?? [null, null];
    if (failed) throw failed;
    const held = this.#memory.get(field);
    this.#memory.delete(field);
    return typeof json === 'string' ? (JSON.parse(json) as KeptAnswer) : held;
  }

  async list(sessionId?: string): Promise<KeptAnswer[]> {
    const found = new Map<string, KeptAnswer>();
    const match = sessionId === undefined ? '*' : `${escapeGlob(sessionId)} *`;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.#key, cursor, 'MATCH', match, 'COUNT', 100);
      for (let i = 0; i + 1 < flat.length; i += 2)
        found.set(flat[i]!, JSON.parse(flat[i + 1]!) as KeptAnswer);
      cursor = next;
    } while (cursor !== '0');
    for (const [field, answer] of this.#memory)
      if (sessionId === undefined || answer.sessionId === sessionId) found.set(field, answer);
    return [...found.values()].sort((a, b) => a.keptAt - b.keptAt);
  }
}

/** The id as a literal in a Redis MATCH pattern. */
const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');
