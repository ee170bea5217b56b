/**
 * The Redis keys of one session's shared live state. The `{sessionId}` hash tag keeps a
 * session's keys in one slot, so the scripts that touch several of them also run on a
 * Redis Cluster.
 */
export interface SessionKeys {
  /** Who runs the session's turn now: set with NX and a TTL, renewed while it runs. */
  lease: string;
  /** The fencing generation: raised by every claim; only its holder may write. */
  generation: string;
  /** Every frame of the session's turns, in order (a Redis Stream, bounded, expiring after a turn). */
  frames: string;
  /** The running turn's snapshot (a `stream_resume` frame) and the entry id it stands at. */
  snapshot: string;
  /** A stop for the running turn, by its id: read by the owner at its next renewal if the broadcast was missed. */
  abort: string;
  /** Approval decisions for the running turn's calls, by call id, kept the same way. */
  decisions: string;
  /** A new session's owner until its first message is stored ('' for none). */
  announced: string;
  /**
   * When this Redis first saw the session without a generation (Redis time, ms): after
   * Redis lost its data, an owner has a lease's time from here to put its turn back
   * before anyone may claim the session (scripts.ts).
   */
  seen: string;
}

export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  const base = `${prefix}{${sessionId}}:`;
  return {
    lease: `${base}lease`,
    generation: `${base}gen`,
    frames: `${base}frames`,
    snapshot: `${base}resume`,
    abort: `${base}abort`,
    decisions: `${base}decisions`,
    announced: `${base}announced`,
    seen: `${base}seen`,
  };
}

/** The session a frames key belongs to (the follower reads several streams at once). */
export function sessionOfFramesKey(prefix: string, key: string): string {
  return key.slice(prefix.length + 1, key.length - '}:frames'.length);
}

/**
 * The running turns of every instance, as a sorted set of session ids scored by when
 * their lease expires: an owner that dies leaves an entry that expires with its lease.
 */
export const runningTurnsKey = (prefix: string) => `${prefix}running`;

/** Pub/sub channels, one for all sessions: stops, decisions and frames outside turns are rare. */
export const channels = (prefix: string) => ({
  abort: `${prefix}abort`,
  decision: `${prefix}decision`,
  shared: `${prefix}shared`,
});
