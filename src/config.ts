import { resolve } from 'node:path';
import type { Level } from 'pino';

export type LogFormat = 'json' | 'pretty';

/** The origins whose browser pages may call the gateway: any (`*`), or a list (empty: none). */
export type CorsOrigins = '*' | readonly string[];

const LOG_LEVELS: readonly (Level | 'silent')[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export type PreparedStatements = 'auto' | 'named' | 'unnamed';

/** How long the gateway waits on PostgreSQL; a request waits at most the connection's bound plus the statement's. */
export interface DatabaseBounds {
  /** For a pooled connection, or a new one to open. @default 5000 */
  connectTimeoutMs: number;
  /** For one statement: PostgreSQL's statement_timeout, and the gateway's own bound on an answer. @default 30000 */
  statementTimeoutMs: number;
  /** For a lock another session holds: PostgreSQL's lock_timeout. @default 5000 */
  lockTimeoutMs: number;
}

/** Settings read from the environment; the README's configuration table lists them. */
export interface Config {
  /** HTTP port; 0 takes any free one. @default 4000 */
  port: number;
  /** PostgreSQL URL; when unset the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database and, by default, of uploaded files. @default ./.data */
  dataDir: string;
  /** PostgreSQL itself when `databaseUrl` is a pooler (PgBouncer in transaction mode): LISTEN, migrations, database creation. @default databaseUrl */
  databaseDirectUrl: string | undefined;
  /** Streaming replicas that answer query operations in turn; empty: every read on `databaseUrl`. @default none */
  replicaUrls: string[];
  /** A replica further behind the primary than this is skipped until it catches up. @default 1000 */
  replicaMaxLagMs: number;
  /** Whether planned statements are prepared by name on each connection; `auto` decides from the pooler (see src/db/prepared.ts). @default auto */
  preparedStatements: PreparedStatements;
  /** Connections in the PostgreSQL pool (and in each replica's). @default 10 */
  poolSize: number;
  /** How long a request waits for a connection, a statement and a lock. */
  databaseBounds: DatabaseBounds;
  /** Serve GraphiQL at GET /graphql. @default true */
  graphiql: boolean;
  /** Answer introspection queries. @default true */
  introspection: boolean;
  /** Load the demo data into an empty embedded database at start. @default true */
  seedDemo: boolean;
  /** Secret of the demo owner's API key, so scripts can rely on it. @default a random one */
  demoApiKey: string | undefined;
  /** NODE_ENV=production: GraphiQL never opens with the demo key in its headers. @default false */
  production: boolean;
  /** Deepest selection an operation may nest (a connection hop counts three: field, edges, node). @default 15 */
  maxDepth: number;
  /** Most aliases in one operation; the legacy REST views alias every snake_case field, the texture view 34 of them. @default 60 */
  maxAliases: number;
  /** Most rows one operation may return, counting each connection's page size for every row above it. @default 50000 */
  maxNodes: number;
  /** Largest request body, in bytes. @default 1048576 */
  maxBodyBytes: number;
  /** Where uploaded files live: the database (every instance serves every file) or `filesDir`. @default database, directory when FILES_DIR is set */
  fileStore: 'database' | 'directory';
  /** Directory of uploaded files with the directory store. @default DATA_DIR/files */
  filesDir: string;
  /** Largest uploaded file, in bytes. @default 10485760 */
  maxUploadBytes: number;
  /**
   * Answer a query whose every field can be planned with one SQL statement that builds the response,
   * and a one-statement update whose payload asks only the row's columns without the executor. @default true
   */
  readPlans: boolean;
  /**
   * Run query operations under PostgreSQL's row-level security as well (a second lock behind each
   * statement's own tenancy; needs PostgreSQL and a role that does not bypass it). @default false
   */
  rowLevelSecurity: boolean;
  /** Most subscriptions one API key may hold open on one instance. @default 20 */
  maxSubscriptionsPerKey: number;
  /** How often an instance with subscribers reads the committed live events of every instance. @default 25 ms */
  livePollMs: number;
  /** Least severe log level written: fatal, error, warn, info (one line per request), debug, trace or silent. @default info */
  logLevel: string;
  /** `json` (one object per line) or `pretty` (human-readable; `npm run dev` sets it). @default json */
  logFormat: LogFormat;
  /** Bearer token that `GET /metrics` requires; with neither it nor `metricsPort`, metrics are off. */
  metricsToken: string | undefined;
  /** Serve `/metrics` on this port of its own instead of the main one. */
  metricsPort: number | undefined;
  /** OTLP/HTTP collector; when set, spans are exported there (the SDK is not even loaded otherwise). */
  otlpEndpoint: string | undefined;
  /** `service.name` of the exported spans. @default whiteboard-gateway */
  serviceName: string;
  /** A token bucket per API key (per client address for requests without a valid key). @default undefined: no rate limit */
  rateLimit: RateLimitConfig | undefined;
  /** A manifest of persisted documents: /graphql then runs only those. @default undefined: any operation */
  trustedDocuments: string | undefined;
  /** Origins whose pages may call /graphql, the REST routes, /files and the OpenAPI document. @default none in production, any origin otherwise */
  corsOrigins: CorsOrigins;
  /** OpenID Connect issuers whose bearer tokens are accepted beside API keys. @default undefined: API keys only */
  oidc: OidcConfig | undefined;
}

export interface OidcConfig {
  /** Issuer URLs, exactly as the tokens' `iss` names them: https, or http on a loopback address. */
  issuers: string[];
  /** The audience the gateway answers to: a token's `aud` must hold it exactly. */
  audience: string;
  /** A first sign-in whose verified e-mail has no user creates one (without memberships). @default false */
  createUsers: boolean;
  /** Longest wait for an issuer's discovery document or key set. @default 3000 ms */
  timeoutMs: number;
}

export interface RateLimitConfig {
  /** Points a bucket gains per second. */
  rate: number;
  /** Points a full bucket holds. @default 10 seconds' worth of rate */
  burst: number;
  /** Redis keeps the buckets instead of the database. @default undefined: the database */
  redisUrl: string | undefined;
  /** Prefix of the buckets' Redis keys, for several deployments on one Redis. @default gateway:rate-limit: */
  redisPrefix: string;
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

function integer(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new Error(`${name} must be an integer of at least ${min}, got "${value}"`);
  return parsed;
}

function positive(name: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a number above 0, got "${value}"`);
  return parsed;
}

/** `ROW_LEVEL_SECURITY`: PostgreSQL's own lock, which the embedded database's single superuser session bypasses. */
function rowLevelSecurity(env: NodeJS.ProcessEnv): boolean {
  const on = flag(env.ROW_LEVEL_SECURITY, false);
  if (on && !env.DATABASE_URL) throw new Error('ROW_LEVEL_SECURITY needs PostgreSQL: set DATABASE_URL as well');
  // The settings it reads are the session's, which a pooler in transaction mode hands to other clients.
  if (on && env.DATABASE_DIRECT_URL)
    throw new Error('ROW_LEVEL_SECURITY cannot run behind a pooler in transaction mode (DATABASE_DIRECT_URL is set)');
  return on;
}

function rateLimit(env: NodeJS.ProcessEnv): RateLimitConfig | undefined {
  if (!env.RATE_LIMIT) {
    const stray = ['RATE_LIMIT_BURST', 'RATE_LIMIT_REDIS_URL', 'RATE_LIMIT_REDIS_PREFIX'].find((name) => env[name]);
    if (stray) throw new Error(`${stray} is set but RATE_LIMIT is not (the rate limit is off without it)`);
    return undefined;
  }
  const rate = positive('RATE_LIMIT', env.RATE_LIMIT);
  return {
    rate,
    burst: env.RATE_LIMIT_BURST ? positive('RATE_LIMIT_BURST', env.RATE_LIMIT_BURST) : rate * 10,
    redisUrl: env.RATE_LIMIT_REDIS_URL || undefined,
    redisPrefix: env.RATE_LIMIT_REDIS_PREFIX || 'gateway:rate-limit:',
  };
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|\[::1\]|localhost)$/;

/** An issuer URL as tokens name it: https, or http on a loopback address (tests, development); no query or fragment. */
export function issuerUrl(name: string, value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.test(url.hostname));
  if (!url || !secure || url.search || url.hash || url.username)
    throw new Error(`${name}: "${value}" must be an https:// URL (http:// only on a loopback address), without query`);
  return value;
}

/** `OIDC_ISSUER` (comma-separated) with `OIDC_AUDIENCE`: bearer tokens beside API keys. */
function oidc(env: NodeJS.ProcessEnv): OidcConfig | undefined {
  const issuers = (env.OIDC_ISSUER ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => issuerUrl('OIDC_ISSUER', entry));
  if (!issuers.length) {
    const stray = ['OIDC_AUDIENCE', 'OIDC_CREATE_USERS', 'OIDC_TIMEOUT_MS'].find((name) => env[name]);
    if (stray) throw new Error(`${stray} is set but OIDC_ISSUER is not (bearer tokens are off without it)`);
    return undefined;
  }
  const audience = env.OIDC_AUDIENCE?.trim();
  if (!audience)
    throw new Error('OIDC_ISSUER is set but OIDC_AUDIENCE is not: name the audience the gateway answers to');
  return {
    issuers,
    audience,
    createUsers: flag(env.OIDC_CREATE_USERS, false),
    timeoutMs: integer('OIDC_TIMEOUT_MS', env.OIDC_TIMEOUT_MS, 3000, 100),
  };
}

function postgresUrl(name: string, value: string): string {
  if (!/^postgres(ql)?:\/\//.test(value)) throw new Error(`${name} must be a postgresql:// URL, got "${value}"`);
  return value;
}

/** Where the gateway meets PostgreSQL beyond DATABASE_URL: a pooler's direct URL and the replicas. */
function servers(env: NodeJS.ProcessEnv) {
  // A URL may itself hold commas (libpq's multi-host form): only a comma before a scheme separates two.
  const replicaUrls = (env.DATABASE_REPLICA_URLS ?? '')
    .split(/,(?=\s*postgres(?:ql)?:\/\/)/)
    .map((url) => url.trim())
    .filter(Boolean)
    .map((url) => postgresUrl('DATABASE_REPLICA_URLS', url));
  const directUrl = env.DATABASE_DIRECT_URL ? postgresUrl('DATABASE_DIRECT_URL', env.DATABASE_DIRECT_URL) : undefined;
  if (!env.DATABASE_URL) {
    const stray = ['DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URLS'].find((name) => env[name]);
    if (stray)
      throw new Error(`${stray} is set but DATABASE_URL is not (the embedded database has no pooler or replicas)`);
  }
  return {
    databaseDirectUrl: directUrl,
    replicaUrls,
    // Below a few polls of the replicas (every 100 ms) a replica would be skipped at every poll.
    replicaMaxLagMs: integer('DATABASE_REPLICA_MAX_LAG_MS', env.DATABASE_REPLICA_MAX_LAG_MS, 1000, 300),
    preparedStatements: oneOf<PreparedStatements>(
      'DATABASE_PREPARED_STATEMENTS',
      env.DATABASE_PREPARED_STATEMENTS,
      ['auto', 'named', 'unnamed'],
      'auto',
    ),
  };
}

// Below these a healthy server under load would be refused as often as a failing one.
function databaseBounds(env: NodeJS.ProcessEnv): DatabaseBounds {
  const bounds = {
    connectTimeoutMs: integer('DATABASE_CONNECT_TIMEOUT_MS', env.DATABASE_CONNECT_TIMEOUT_MS, 5_000, 100),
    statementTimeoutMs: integer('DATABASE_STATEMENT_TIMEOUT_MS', env.DATABASE_STATEMENT_TIMEOUT_MS, 30_000, 100),
    lockTimeoutMs: integer('DATABASE_LOCK_TIMEOUT_MS', env.DATABASE_LOCK_TIMEOUT_MS, 5_000, 10),
  };
  if (bounds.lockTimeoutMs > bounds.statementTimeoutMs)
    throw new Error(
      `DATABASE_LOCK_TIMEOUT_MS (${bounds.lockTimeoutMs}) must not exceed DATABASE_STATEMENT_TIMEOUT_MS (${bounds.statementTimeoutMs})`,
    );
  return bounds;
}

function fileStoreKind(env: NodeJS.ProcessEnv): Config['fileStore'] {
  const kind = env.FILE_STORE || (env.FILES_DIR ? 'directory' : 'database');
  if (kind !== 'database' && kind !== 'directory')
    throw new Error(`FILE_STORE must be database or directory, got "${kind}"`);
  return kind;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if (!allowed.includes(value as T)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** `CORS_ORIGINS`: `*`, or comma-separated origins (`scheme://host[:port]`); unset: none in production, any origin otherwise. */
function corsOrigins(value: string | undefined, production: boolean): CorsOrigins {
  if (value === undefined || value.trim() === '') return production ? [] : '*';
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.includes('*')) {
    if (entries.length > 1) throw new Error(`CORS_ORIGINS: * (any origin) stands alone, got "${value}"`);
    return '*';
  }
  return entries.map((entry) => {
    const url = URL.canParse(entry) ? new URL(entry) : undefined;
    if (!url || url.origin === 'null' || url.pathname !== '/' || url.search || url.hash || url.username)
      throw new Error(`CORS_ORIGINS: "${entry}" is not an origin (scheme://host[:port], no path)`);
    // As a browser sends it: lower-case host, no default port.
    return url.origin;
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './.data');
  const production = env.NODE_ENV === 'production';
  return {
    // 0 asks the system for a free port (the start line says which).
    port: integer('PORT', env.PORT, 4000, 0),
    databaseUrl: env.DATABASE_URL || undefined,
    ...servers(env),
    dataDir,
    poolSize: integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, 10),
    databaseBounds: databaseBounds(env),
    graphiql: flag(env.GRAPHIQL, true),
    introspection: flag(env.INTROSPECTION, true),
    seedDemo: flag(env.SEED_DEMO, true),
    demoApiKey: env.DEMO_API_KEY || undefined,
    production,
    maxDepth: integer('MAX_DEPTH', env.MAX_DEPTH, 15),
    maxAliases: integer('MAX_ALIASES', env.MAX_ALIASES, 60),
    maxNodes: integer('MAX_NODES', env.MAX_NODES, 50_000),
    maxBodyBytes: integer('MAX_BODY_BYTES', env.MAX_BODY_BYTES, 1_048_576),
    fileStore: fileStoreKind(env),
    filesDir: resolve(env.FILES_DIR || `${dataDir}/files`),
    maxUploadBytes: integer('MAX_UPLOAD_BYTES', env.MAX_UPLOAD_BYTES, 10_485_760),
    readPlans: flag(env.READ_PLANS, true),
    rowLevelSecurity: rowLevelSecurity(env),
    maxSubscriptionsPerKey: integer('MAX_SUBSCRIPTIONS_PER_KEY', env.MAX_SUBSCRIPTIONS_PER_KEY, 20),
    livePollMs: integer('LIVE_POLL_MS', env.LIVE_POLL_MS, 25),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    logFormat: oneOf<LogFormat>('LOG_FORMAT', env.LOG_FORMAT, ['json', 'pretty'], 'json'),
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsPort: env.METRICS_PORT ? integer('METRICS_PORT', env.METRICS_PORT, 0, 0) : undefined,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    serviceName: env.OTEL_SERVICE_NAME || 'whiteboard-gateway',
    rateLimit: rateLimit(env),
    trustedDocuments: env.TRUSTED_DOCUMENTS ? resolve(env.TRUSTED_DOCUMENTS) : undefined,
    corsOrigins: corsOrigins(env.CORS_ORIGINS, production),
    oidc: oidc(env),
  };
}
