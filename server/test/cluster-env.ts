/**
 * The environment of an `aalis-server` process in a multi-instance test: the fake model
 * upstream, the shared Redis and PostgreSQL, one signing key for every instance (a
 * cluster refuses to start without one), a short lease, and no per-address limits (every
 * tab of a test comes from 127.0.0.1).
 */
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
