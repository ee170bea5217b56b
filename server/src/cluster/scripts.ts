/**
 * The Lua scripts of the shared live state: each is one atomic step on a session's keys
 * (keys.ts), so a claim, a renewal or an append can never interleave with another
 * instance's. Fencing: every claim sets the session's generation to a token of its own
 * (`<instance>:<turn id>`, never reused, even after Redis lost its data), and every write
 * checks it against the writer's: a stale owner (presumed dead, then back) is refused.
 * When the generation is missing, Redis lost its data (a restart without persistence):
 * the writer, which held the turn and was not replaced meanwhile, puts it back and goes on.
 */
import type { Redis } from 'ioredis';
import type { SessionKeys } from './keys.js';

/**
 * How long a session's generation and a turn's log are kept when its owner never ends
 * the turn (it died and no tab was there to end it): a day, then Redis forgets them.
 */
export const KEEP_MS = 24 * 3_600_000;

/**
 * KEYS lease, generation, frames, abort, decisions; ARGV instance, leaseMs, keepMs (how
 * long the generation and a turn's log outlive an owner that never ended its turn), the
 * claim's generation token.
 */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[4], KEYS[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
local lastId = '0-0'
if last[1] then lastId = last[1][1] end
return {1, lastId}
`;

/** KEYS lease, generation, abort, decisions; ARGV generation, instance, leaseMs, turnId. */
const RENEW = `
local current = redis.call('GET', KEYS[2])
if current and current ~= ARGV[1] then return {0} end
if not current then
  local holder = redis.call('GET', KEYS[1])
  if holder and holder ~= ARGV[2] then return {0} end
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ${KEEP_MS})
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
local aborted = 0
if redis.call('GET', KEYS[3]) == ARGV[4] then aborted = 1 end
return {1, aborted, redis.call('HGETALL', KEYS[4])}
`;

/**
 * KEYS frames, snapshot, generation, lease, abort, decisions; ARGV generation, maxLen,
 * snapshot ('' for none), snapshotTtlMs, origin, end ('1' ends the turn), turnId,
 * framesTtlMs, then the frames.
 */
const APPEND = `
local current = redis.call('GET', KEYS[3])
if current and current ~= ARGV[1] then return {0} end
if not current then
  local holder = redis.call('GET', KEYS[4])
  if holder and holder ~= ARGV[5] then return {0} end
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ${KEEP_MS})
end
local id = false
for i = 9, #ARGV do
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'o', ARGV[5], 'f', ARGV[i])
end
if ARGV[6] == '1' then
  redis.call('DEL', KEYS[2], KEYS[4], KEYS[5], KEYS[6])
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
elseif ARGV[3] ~= '' and id then
  redis.call('HSET', KEYS[2], 'id', id, 'frame', ARGV[3], 'turn', ARGV[7])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return {1, id or ''}
`;

/**
 * KEYS snapshot, frames. Where the log starts and ends ('0-0' when empty), and the
 * running turn's snapshot with the entry it stands at: {first, end} or {first, end, id,
 * frame, turn}.
 */
const RESUME_POINT = `
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
local lastId = '0-0'
local firstId = '0-0'
if last[1] then lastId = last[1][1] end
if first[1] then firstId = first[1][1] end
local s = redis.call('HMGET', KEYS[1], 'id', 'frame', 'turn')
if s[1] then return {firstId, lastId, s[1], s[2], s[3]} end
return {firstId, lastId}
`;

export interface ClusterScripts {
  aalisClaim(...args: Array<string | number>): Promise<[0] | [1, string]>;
  aalisRenew(...args: Array<string | number>): Promise<[0] | [1, 0 | 1, string[]]>;
  aalisAppend(...args: Array<string | number>): Promise<[0] | [1, string]>;
  aalisResumePoint(...args: string[]): Promise<[string, string, string?, string?, string?]>;
}

export type ScriptedRedis = Redis & ClusterScripts;

/** Who writes, under which claim: what every script of an owner checks. */
export interface Writer {
  /** The instance (the lease's value, each log entry's origin). */
  instanceId: string;
  /** The claim's fencing token. */
  generation: string;
  turnId: string;
}

/** Claims a session's turn: busy, or the log's last entry id at the claim. */
export async function claimTurn(
  redis: ScriptedRedis,
  keys: SessionKeys,
  writer: Writer,
  leaseMs: number,
): Promise<{ busy: true } | { busy: false; lastId: string }> {
  const { lease, generation, frames, abort, decisions } = keys;
  const claimed = await redis.aalisClaim(
    lease,
    generation,
    frames,
    abort,
    decisions,
    writer.instanceId,
    leaseMs,
    KEEP_MS,
    writer.generation,
  );
  return claimed[0] === 0 ? { busy: true } : { busy: false, lastId: claimed[1] };
}

/** Renews the lease: fenced, or what other instances asked meanwhile (a stop, decisions as JSON). */
export async function renewTurn(
  redis: ScriptedRedis,
  keys: SessionKeys,
  writer: Writer,
  leaseMs: number,
): Promise<{ fenced: true } | { fenced: false; aborted: boolean; decisions: string[] }> {
  const { lease, generation, abort, decisions } = keys;
  const renewed = await redis.aalisRenew(
    lease,
    generation,
    abort,
    decisions,
    writer.generation,
    writer.instanceId,
    leaseMs,
    writer.turnId,
  );
  if (renewed[0] === 0) return { fenced: true };
  const fields = renewed[2];
  return { fenced: false, aborted: renewed[1] === 1, decisions: fields.filter((_, i) => i % 2 === 1) };
}

export interface AppendOptions {
  /** Entries the log keeps, approximately. */
  maxFrames: number;
  /** The snapshot to keep after these frames (a `stream_resume`'s JSON), if one is due. */
  snapshot?: string | undefined;
  snapshotTtlMs: number;
  /** Ends the turn: the snapshot, the lease and the requests go, the log expires after `framesTtlMs`. */
  end: boolean;
  framesTtlMs: number;
}

/** Appends frames (their JSON) to the session's log: false when fenced; the last entry id otherwise. */
export async function appendFrames(
  redis: ScriptedRedis,
  keys: SessionKeys,
  writer: Writer,
  frames: string[],
  options: AppendOptions,
): Promise<{ fenced: true } | { fenced: false; lastId: string }> {
  const appended = await redis.aalisAppend(
    keys.frames,
    keys.snapshot,
    keys.generation,
    keys.lease,
    keys.abort,
    keys.decisions,
    writer.generation,
    options.maxFrames,
    options.snapshot ?? '',
    options.snapshotTtlMs,
    writer.instanceId,
    options.end ? '1' : '0',
    writer.turnId,
    options.framesTtlMs,
    ...frames,
  );
  return appended[0] === 0 ? { fenced: true } : { fenced: false, lastId: appended[1] };
}

/** Defines the scripts on a connection (ioredis runs them by SHA, loading them when Redis lost them). */
export function withScripts(redis: Redis): ScriptedRedis {
  redis.defineCommand('aalisClaim', { numberOfKeys: 5, lua: CLAIM });
  redis.defineCommand('aalisRenew', { numberOfKeys: 4, lua: RENEW });
  redis.defineCommand('aalisAppend', { numberOfKeys: 6, lua: APPEND });
  redis.defineCommand('aalisResumePoint', { numberOfKeys: 2, lua: RESUME_POINT });
  return redis as ScriptedRedis;
}
