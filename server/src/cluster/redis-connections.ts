/**
 * The three Redis connections an instance keeps: one for commands (claims, appends,
 * renewals, budgets; auto-pipelined, so the writes of one tick leave in one packet), one
 * that blocks reading the sessions' streams, and one subscribed to stops and decisions
 * (a subscribed connection can do nothing else). Commands fail at once while Redis is
 * unreachable (no offline queue): a turn must not wait on a queue that may never drain,
 * and a new one is refused with a clear error instead. ioredis reconnects by itself.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { maskUrl } from '../util/secrets.js';
import type { Logger } from '../util/log-error.js';
import { withScripts, type ScriptedRedis } from './scripts.js';

export interface RedisConnections {
  command: ScriptedRedis;
  blocking: Redis;
  subscriber: Redis;
  close(): Promise<void>;
}

/**
 * Connects all three, or rejects in one line that says which Redis could not be reached
 * and why (the start-up check: the server then exits 2).
 */
export async function connectRedis(
  url: string,
  logger: Logger,
  connectTimeoutMs = 5_000,
): Promise<RedisConnections> {
  const label = maskUrl(url);
  const options: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: connectTimeoutMs,
    // Forever, at most every 2 s: losing Redis later is survived, not fatal.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  };
  // A command that gets no answer (a network that drops packets) fails in 5 s; a command
  // in flight when the connection dropped is not sent again (an append must not be
  // written twice, a blocking read must notice the new connection).
  const command = withScripts(
    new Redis(url, {
      ...options,
      enableAutoPipelining: true,
      commandTimeout: 5_000,
      autoResendUnfulfilledCommands: false,
    }),
  );
  const blocking = new Redis(url, { ...options, autoResendUnfulfilledCommands: false });
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
  const all = [command, blocking, subscriber];
  watchHealth(command, label, logger);
  // The socket's own error (ECONNREFUSED) says more than the rejected connect ("Connection is closed").
  let firstError: Error | undefined;
  for (const redis of all) redis.on('error', (error: Error) => (firstError ??= error));
  try {
    await Promise.all(all.map((redis) => redis.connect()));
    await command.ping();
  } catch (error) {
    for (const redis of all) redis.disconnect();
    const reason =
      (firstError as NodeJS.ErrnoException | undefined)?.code ?? (firstError ?? (error as Error)).message;
    throw new Error(`Redis at ${label} cannot be reached: ${reason}`);
  }
  return {
    command,
    blocking,
    subscriber,
    async close() {
      for (const redis of all) redis.disconnect();
    },
  };
}

/** One log line when Redis is lost, one when it is back; not one per retry. */
function watchHealth(redis: Redis, label: string, logger: Logger): void {
  let lost = false;
  // Before the first connection, a failure is the start-up check's to say, in one line.
  let connected = false;
  redis.on('error', (error: Error) => {
    if (lost || !connected) return;
    lost = true;
    logger.error(
      { redis: label, err: error.message },
      'Redis unreachable: running turns finish on their instance, new turns are refused until it is back',
    );
  });
  redis.on('ready', () => {
    connected = true;
    if (!lost) return;
    lost = false;
    logger.info({ redis: label }, 'Redis reachable again');
  });
}
