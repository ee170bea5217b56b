/**
 * The environment of an `aalis-server` process in a multi-instance test: the fake model
 * upstream, the shared Redis and PostgreSQL, one signing key for every instance (a
 * cluster refuses to start without one), a short lease, and no per-address limits (every
 * tab of a test comes from 127.0.0.1).
 */
import { startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import { startPostgres, type TestPostgres } from './services/postgres.js';
import { startRedis, type RedisService } from './services/redis.js';

export interface ClusterEnvOptions {
  upstreamUrl: string;
  redisUrl: string;
  databaseUrl: string;
  leaseMs: number;
  dataDir: string;
  /** A configuration file (tools, MCP servers), when the test has one. */
  configFile?: string;
}

export function clusterEnv(options: ClusterEnvOptions): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: options.upstreamUrl,
    AALIS_MODEL: 'test-model',
    AALIS_REDIS_URL: options.redisUrl,
    AALIS_AUTH_SECRET: 'a-cluster-secret-of-at-least-32-bytes!!',
    AALIS_DATABASE_URL: options.databaseUrl,
    AALIS_TURN_LEASE_MS: String(options.leaseMs),
    AALIS_DATA_DIR: options.dataDir,
    ...(options.configFile ? { AALIS_CONFIG: options.configFile } : {}),
    AALIS_PUBLIC_HOSTS: '*',
    AALIS_IP_MAX_CONNECTIONS: '0',
    AALIS_IP_CONNECTIONS_PER_MINUTE: '0',
    AALIS_IP_SENDS_PER_MINUTE: '0',
    AALIS_IP_TURNS_PER_HOUR: '0',
    AALIS_ANON_TURNS_PER_HOUR: '0',
  };
}

/** What the instances of a multi-instance test share: Redis, PostgreSQL and the model. */
export interface ClusterServices {
  redis: RedisService;
  postgres: TestPostgres;
  upstream: FakeUpstream;
  /** Stops all three. */
  stop(): Promise<void>;
}

/**
 * Starts a real Redis, a real PostgreSQL and a fake model upstream whose replies are
 * `replies`, scripted as each test goes: taken in order, whichever instance asks.
 */
export async function startClusterServices(replies: Reply[]): Promise<ClusterServices> {
  const [redis, postgres, upstream] = await Promise.all([
    startRedis(),
    startPostgres(),
    startFakeUpstream(() => replies.shift() ?? { status: 500, body: 'no reply scripted' }),
  ]);
  return {
    redis,
    postgres,
    upstream,
    async stop() {
      await upstream.close();
      await redis.stop();
      await postgres.stop();
    },
  };
}
