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

/** Defines the scripts on a connection (ioredis runs them by SHA, loading them when Redis lost them). */
export function withScripts(redis: Redis): ScriptedRedis {
  redis.defineCommand('aalisClaim', { numberOfKeys: 5, lua: CLAIM });
  redis.defineCommand('aalisRenew', { numberOfKeys: 4, lua: RENEW });
  redis.defineCommand('aalisAppend', { numberOfKeys: 6, lua: APPEND });
  redis.defineCommand('aalisResumePoint', { numberOfKeys: 2, lua: RESUME_POINT });
  return redis as ScriptedRedis;
}
