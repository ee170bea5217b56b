/**
 * The Lua scripts of the shared live state: each is one atomic step on a session's keys
 * (keys.ts), so a claim, a renewal or an append can never interleave with another
 * instance's. Fencing: every claim sets the session's generation to a token of its own
 * (`<instance>:<turn id>`, never reused, even after Redis lost its data), and every write
 * checks it against the writer's: a stale owner (presumed dead, then back) is refused.
 * When the generation is missing, Redis lost its data (a restart without persistence):
 * the writer, which held the turn and was not replaced meanwhile, puts it back and goes on.
 * Nobody else may take such a session until a lease has passed (CLAIM's 'uncertain'): a
 * takeover needs positive evidence that the owner is gone, never a key's mere absence.
 */
import type { Redis } from 'ioredis';
import type { SessionKeys } from './keys.js';

/**
 * How long a session's generation and a turn's log are kept when its owner never ends
 * the turn (it died and no tab was there to end it): a day, then Redis forgets them.
 */
export const KEEP_MS = 24 * 3_600_000;

/**
 * Redis's own clock, in ms: the same for every instance, so that ages kept in Redis are
 * never compared with one instance's clock.
 */
const NOW = `
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * Whether the session may be taken now that no lease is held: a lease that expired is
 * positive evidence its owner is gone (the generation outlives every lease). With no
 * generation either, Redis lost its data (or never had a claim of the session): an owner
 * alive somewhere puts its turn back within a lease of Redis being back, so until a
 * lease has passed since Redis first saw the session that way, it is 'uncertain'.
 * KEYS[2] generation, KEYS[k] seen; ARGV[g] the grace (ms), ARGV[keep] keepMs.
 */
const SETTLED = (seenKey: string, graceArg: string, keepArg: string) => `
local function settled()
  if redis.call('EXISTS', KEYS[2]) == 1 then return true end
  local now = nowMs()
  local seen = redis.call('GET', ${seenKey})
  if not seen then
    redis.call('SET', ${seenKey}, now, 'PX', ${keepArg})
    seen = now
  end
  return now - tonumber(seen) >= tonumber(${graceArg})
end
`;

/**
 * KEYS lease, generation, frames, abort, decisions, seen; ARGV instance, leaseMs, keepMs
 * (how long the generation and a turn's log outlive an owner that never ended its turn),
 * the claim's generation token, graceMs, force ('1': the history says no turn can be
 * running, so an uncertain session may be claimed). Returns {0} busy, {2} uncertain, or
 * {1, the log's last entry id, the turn id a Stop was recorded for ('' for none), the
 * generation of the claim before whose turn never ended ('' for none)}.
 */
const CLAIM = `
${NOW}
${SETTLED('KEYS[6]', 'ARGV[5]', 'ARGV[3]')}
if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
if ARGV[6] ~= '1' and not settled() then return {2} end
local stopped = redis.call('GET', KEYS[4]) or ''
local previous = redis.call('GET', KEYS[2])
local unended = ''
if previous and string.sub(previous, -6) ~= '|ended' then unended = previous end
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[4], KEYS[5], KEYS[6])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
local lastId = '0-0'
if last[1] then lastId = last[1][1] end
return {1, lastId, stopped, unended}
`;

/**
 * KEYS lease, generation, seen; ARGV graceMs, keepMs. Where a session's owner stands, as
 * seen by another instance: {1, ms left on its lease} held, {0} gone (positive evidence:
 * its lease expired, or Redis lost its data a lease ago and no owner put it back), {2}
 * uncertain (Redis lost its data a moment ago: an owner may still put its turn back).
 */
const OWNER_STATE = `
${NOW}
${SETTLED('KEYS[3]', 'ARGV[1]', 'ARGV[2]')}
local left = redis.call('PTTL', KEYS[1])
if left > 0 then return {1, left} end
if left == -1 then return {1, 0} end
if settled() then return {0} end
return {2}
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
  -- The turn ended: the next claim knows its turn needs no end from anyone else.
  redis.call('SET', KEYS[3], ARGV[1] .. '|ended', 'PX', ${KEEP_MS})
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
  aalisClaim(...args: Array<string | number>): Promise<[0] | [2] | [1, string, string, string]>;
  aalisOwnerState(...args: Array<string | number>): Promise<[0] | [2] | [1, number]>;
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

/** What a claim found. */
export type Claimed =
  /** Another owner holds the session's turn. */
  | { busy: true }
  /** Redis lost its data a moment ago: an owner may still put its turn back. */
  | { uncertain: true }
  /**
   * Claimed: the log's last entry id at the claim, the turn a Stop was recorded for, and
   * the turn of the claim before when it never ended (its owner died).
   */
  | { busy: false; lastId: string; stopped: string | undefined; unended: string | undefined };

export interface ClaimOptions {
  leaseMs: number;
  /** How long after Redis lost its data an owner is waited for (a lease). */
  graceMs: number;
  /** The history says no turn can be running: an uncertain session is claimed all the same. */
  force?: boolean;
}

/** Claims a session's turn. */
export async function claimTurn(
  redis: ScriptedRedis,
  keys: SessionKeys,
  writer: Writer,
  { leaseMs, graceMs, force = false }: ClaimOptions,
): Promise<Claimed> {
  const { lease, generation, frames, abort, decisions, seen } = keys;
  const claimed = await redis.aalisClaim(
    lease,
    generation,
    frames,
    abort,
    decisions,
    seen,
    writer.instanceId,
    leaseMs,
    KEEP_MS,
    writer.generation,
    graceMs,
    force ? '1' : '0',
  );
  if (claimed[0] === 0) return { busy: true };
  if (claimed[0] === 2) return { uncertain: true };
  return {
    busy: false,
    lastId: claimed[1],
    stopped: claimed[2] || undefined,
    unended: claimed[3] ? turnOfGeneration(claimed[3]) : undefined,
  };
}

/**
 * The turn a generation token (`<instance>:<turn id>`) was claimed for; a claim that
 * ended a dead owner's turn (`orphan:<turn id>`) stands for that turn.
 */
function turnOfGeneration(token: string): string {
  const turnId = token.slice(token.indexOf(':') + 1);
  return turnId.startsWith('orphan:') ? turnId.slice('orphan:'.length) : turnId;
}

/** Where a session's owner stands: held (with the ms left on its lease), gone, or uncertain. */
export type OwnerState = { state: 'held'; leftMs: number } | { state: 'gone' } | { state: 'uncertain' };

export async function ownerState(
  redis: ScriptedRedis,
  keys: SessionKeys,
  graceMs: number,
): Promise<OwnerState> {
  const found = await redis.aalisOwnerState(keys.lease, keys.generation, keys.seen, graceMs, KEEP_MS);
  if (found[0] === 1) return { state: 'held', leftMs: found[1] };
  return found[0] === 0 ? { state: 'gone' } : { state: 'uncertain' };
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
  redis.defineCommand('aalisClaim', { numberOfKeys: 6, lua: CLAIM });
  redis.defineCommand('aalisOwnerState', { numberOfKeys: 3, lua: OWNER_STATE });
  redis.defineCommand('aalisRenew', { numberOfKeys: 4, lua: RENEW });
  redis.defineCommand('aalisAppend', { numberOfKeys: 6, lua: APPEND });
  redis.defineCommand('aalisResumePoint', { numberOfKeys: 2, lua: RESUME_POINT });
  return redis as ScriptedRedis;
}
