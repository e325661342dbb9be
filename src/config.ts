import { resolve } from 'node:path';
import type { Level } from 'pino';
import { integerOf, redacted, Settings } from './settings.js';

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

/** Settings read from the environment; docs/configuration.md lists them (a test keeps it so). */
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
  /** Most tokens a document may hold, counted before it is parsed (parsing runs before any credential is checked). @default 10000 */
  maxTokens: number;
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
  /** Days the change log (the action log) keeps an entry; 0 keeps every entry. @default 90 */
  changeLogRetentionDays: number;
  /** Hours a mutation's answer is kept under its Idempotency-Key, for its retries. @default 24 */
  idempotencyTtlHours: number;
  /** How long a WebSocket may stay open without a valid `connection_init` (graphql-transport-ws). @default 3000 ms */
  webSocketInitTimeoutMs: number;
  /** WebSockets one client address may hold open before they sign in; more are refused at the upgrade. @default 16 */
  webSocketUnauthenticatedPerAddress: number;
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
  /** Webhooks: organizations' endpoints told of every change, signed. @default undefined: off (no WEBHOOK_ENCRYPTION_KEY) */
  webhooks: WebhookConfig | undefined;
}

export interface WebhookConfig {
  /** Keys (32 bytes each) that encrypt the signing secrets at rest: the first encrypts, every one decrypts. */
  encryptionKeys: Buffer[];
  /** Most deliveries to one endpoint in flight at once, across every instance. @default 4 */
  concurrency: number;
  /** Endpoints on private, loopback and link-local addresses, and http:// to a loopback host (tests, development). @default false */
  allowPrivate: boolean;
  /** How often an instance reads new changes and due deliveries. @default 50 ms */
  pollMs: number;
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
  /** The `typ` headers an access token may carry, lower-case without `application/` (one without `typ` is judged by its claims). @default at+jwt */
  accessTokenTypes: string[];
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

function positive(name: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a number above 0, got "${value}"`);
  return parsed;
}

/** `ROW_LEVEL_SECURITY`: PostgreSQL's own lock, which the embedded database's single superuser session bypasses. */
function rowLevelSecurity(read: Settings, databaseUrl: string | undefined, directUrl: string | undefined): boolean {
  const on = read.flag('ROW_LEVEL_SECURITY', false);
  if (on && !databaseUrl) throw new Error('ROW_LEVEL_SECURITY needs PostgreSQL: set DATABASE_URL as well');
  // The settings it reads are the session's, which a pooler in transaction mode hands to other clients.
  if (on && directUrl)
    throw new Error('ROW_LEVEL_SECURITY cannot run behind a pooler in transaction mode (DATABASE_DIRECT_URL is set)');
  return on;
}

function rateLimit(read: Settings): RateLimitConfig | undefined {
  const rate = read.optional('RATE_LIMIT');
  read.onlyWith(
    rate !== undefined,
    'RATE_LIMIT',
    ['RATE_LIMIT_BURST', 'RATE_LIMIT_REDIS_URL', 'RATE_LIMIT_REDIS_PREFIX'],
    'the rate limit is off without it',
  );
  const burst = read.optional('RATE_LIMIT_BURST', '10 × RATE_LIMIT');
  const redisUrl = read.optional('RATE_LIMIT_REDIS_URL');
  const redisPrefix = read.text('RATE_LIMIT_REDIS_PREFIX', 'gateway:rate-limit:');
  if (rate === undefined) return undefined;
  const points = positive('RATE_LIMIT', rate);
  return {
    rate: points,
    burst: burst ? positive('RATE_LIMIT_BURST', burst) : points * 10,
    redisUrl,
    redisPrefix,
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
function oidc(read: Settings): OidcConfig | undefined {
  const issuers = (read.optional('OIDC_ISSUER') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => issuerUrl('OIDC_ISSUER', entry));
  read.onlyWith(
    issuers.length > 0,
    'OIDC_ISSUER',
    ['OIDC_AUDIENCE', 'OIDC_CREATE_USERS', 'OIDC_TIMEOUT_MS', 'OIDC_ACCESS_TOKEN_TYPES'],
    'bearer tokens are off without it',
  );
  const audience = read.optional('OIDC_AUDIENCE')?.trim();
  if (issuers.length && !audience)
    throw new Error('OIDC_ISSUER is set but OIDC_AUDIENCE is not: name the audience the gateway answers to');
  const createUsers = read.flag('OIDC_CREATE_USERS', false);
  const timeoutMs = read.integer('OIDC_TIMEOUT_MS', 3000, 100);
  const accessTokenTypes = read
    .text('OIDC_ACCESS_TOKEN_TYPES', 'at+jwt')
    .split(',')
    .map((type) =>
      type
        .trim()
        .toLowerCase()
        .replace(/^application\//, ''),
    )
    .filter(Boolean);
  if (!issuers.length || !audience) return undefined;
  return { issuers, audience, createUsers, timeoutMs, accessTokenTypes };
}

function postgresUrl(name: string, value: string): string {
  if (!/^postgres(ql)?:\/\//.test(value))
    throw new Error(`${name} must be a postgresql:// URL, got "${redacted(value)}"`);
  return value;
}

/** Where the gateway meets PostgreSQL beyond DATABASE_URL: a pooler's direct URL and the replicas. */
function servers(read: Settings, databaseUrl: string | undefined) {
  // A URL may itself hold commas (libpq's multi-host form): only a comma before a scheme separates two.
  const replicaUrls = (read.optional('DATABASE_REPLICA_URLS') ?? '')
    .split(/,(?=\s*postgres(?:ql)?:\/\/)/)
    .map((url) => url.trim())
    .filter(Boolean)
    .map((url) => postgresUrl('DATABASE_REPLICA_URLS', url));
  const direct = read.optional('DATABASE_DIRECT_URL', 'DATABASE_URL');
  const directUrl = direct ? postgresUrl('DATABASE_DIRECT_URL', direct) : undefined;
  read.onlyWith(
    databaseUrl !== undefined,
    'DATABASE_URL',
    ['DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URLS'],
    'the embedded database has no pooler or replicas',
  );
  return {
    databaseDirectUrl: directUrl,
    replicaUrls,
    // Below a few polls of the replicas (every 100 ms) a replica would be skipped at every poll.
    replicaMaxLagMs: read.integer('DATABASE_REPLICA_MAX_LAG_MS', 1000, 300),
    preparedStatements: read.oneOf<PreparedStatements>(
      'DATABASE_PREPARED_STATEMENTS',
      ['auto', 'named', 'unnamed'],
      'auto',
    ),
  };
}

// Below these a healthy server under load would be refused as often as a failing one.
function databaseBounds(read: Settings): DatabaseBounds {
  const bounds = {
    connectTimeoutMs: read.integer('DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100),
    statementTimeoutMs: read.integer('DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 100),
    lockTimeoutMs: read.integer('DATABASE_LOCK_TIMEOUT_MS', 5_000, 10),
  };
  if (bounds.lockTimeoutMs > bounds.statementTimeoutMs)
    throw new Error(
      `DATABASE_LOCK_TIMEOUT_MS (${bounds.lockTimeoutMs}) must not exceed DATABASE_STATEMENT_TIMEOUT_MS (${bounds.statementTimeoutMs})`,
    );
  return bounds;
}

/** `WEBHOOK_ENCRYPTION_KEY`: base64 of 32 bytes, several comma-separated while the key is rotated. */
function encryptionKeys(value: string): Buffer[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Buffer.from skips what is not base64; a key is exactly 44 characters of it.
  if (entries.length === 0 || entries.some((entry) => !/^[A-Za-z0-9+/]{43}=$/.test(entry)))
    throw new Error(
      'WEBHOOK_ENCRYPTION_KEY must be base64 of 32 bytes (openssl rand -base64 32), several comma-separated',
    );
  return entries.map((entry) => Buffer.from(entry, 'base64'));
}

/** `WEBHOOK_ENCRYPTION_KEY` switches webhooks on: a signing secret is stored only encrypted. */
function webhooks(read: Settings): WebhookConfig | undefined {
  const keys = read.optional('WEBHOOK_ENCRYPTION_KEY');
  read.onlyWith(
    keys !== undefined,
    'WEBHOOK_ENCRYPTION_KEY',
    ['WEBHOOK_CONCURRENCY', 'WEBHOOK_ALLOW_PRIVATE', 'WEBHOOK_POLL_MS'],
    'webhooks are off without it',
  );
  const concurrency = read.integer('WEBHOOK_CONCURRENCY', 4);
  const allowPrivate = read.flag('WEBHOOK_ALLOW_PRIVATE', false);
  const pollMs = read.integer('WEBHOOK_POLL_MS', 50, 5);
  return keys === undefined ? undefined : { encryptionKeys: encryptionKeys(keys), concurrency, allowPrivate, pollMs };
}

/** `FILE_STORE`, and `FILES_DIR`, which implies the directory store. */
function files(read: Settings, dataDir: string): Pick<Config, 'fileStore' | 'filesDir'> {
  const filesDir = read.optional('FILES_DIR', 'DATA_DIR/files');
  const kind =
    read.optional('FILE_STORE', 'database (directory when FILES_DIR is set)') ?? (filesDir ? 'directory' : 'database');
  if (kind !== 'database' && kind !== 'directory')
    throw new Error(`FILE_STORE must be database or directory, got "${kind}"`);
  return { fileStore: kind, filesDir: resolve(filesDir ?? `${dataDir}/files`) };
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

const productionOf = (read: Settings) => read.optional('NODE_ENV') === 'production';

/** NODE_ENV=production, as loadConfig reads it, for what is settled when a module loads (the schema's build). */
export function isProduction(env: NodeJS.ProcessEnv = process.env): boolean {
  return productionOf(new Settings(env));
}

function configFrom(read: Settings): Config {
  const dataDir = resolve(read.text('DATA_DIR', './.data'));
  const production = productionOf(read);
  const databaseUrl = read.optional('DATABASE_URL');
  const metricsPort = read.optional('METRICS_PORT');
  const trustedDocuments = read.optional('TRUSTED_DOCUMENTS');
  const network = servers(read, databaseUrl);
  return {
    // 0 asks the system for a free port (the start line says which).
    port: read.integer('PORT', 4000, 0),
    databaseUrl,
    ...network,
    dataDir,
    poolSize: read.integer('DATABASE_POOL_SIZE', 10),
    databaseBounds: databaseBounds(read),
    graphiql: read.flag('GRAPHIQL', true),
    introspection: read.flag('INTROSPECTION', true),
    seedDemo: read.flag('SEED_DEMO', true),
    demoApiKey: read.optional('DEMO_API_KEY', 'random'),
    production,
    maxDepth: read.integer('MAX_DEPTH', 15),
    maxAliases: read.integer('MAX_ALIASES', 60),
    maxNodes: read.integer('MAX_NODES', 50_000),
    maxTokens: read.integer('MAX_TOKENS', 10_000),
    maxBodyBytes: read.integer('MAX_BODY_BYTES', 1_048_576),
    ...files(read, dataDir),
    maxUploadBytes: read.integer('MAX_UPLOAD_BYTES', 10_485_760),
    readPlans: read.flag('READ_PLANS', true),
    rowLevelSecurity: rowLevelSecurity(read, databaseUrl, network.databaseDirectUrl),
    maxSubscriptionsPerKey: read.integer('MAX_SUBSCRIPTIONS_PER_KEY', 20),
    livePollMs: read.integer('LIVE_POLL_MS', 25),
    changeLogRetentionDays: read.integer('CHANGE_LOG_RETENTION_DAYS', 90, 0),
    idempotencyTtlHours: read.integer('IDEMPOTENCY_TTL_HOURS', 24),
    webSocketInitTimeoutMs: read.integer('WEBSOCKET_INIT_TIMEOUT_MS', 3000, 100),
    webSocketUnauthenticatedPerAddress: read.integer('WEBSOCKET_UNAUTHENTICATED_PER_ADDRESS', 16),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: read.oneOf<LogFormat>('LOG_FORMAT', ['json', 'pretty'], 'json'),
    metricsToken: read.optional('METRICS_TOKEN'),
    metricsPort: metricsPort === undefined ? undefined : integerOf('METRICS_PORT', metricsPort, 0),
    otlpEndpoint: read.optional('OTEL_EXPORTER_OTLP_ENDPOINT'),
    serviceName: read.text('OTEL_SERVICE_NAME', 'whiteboard-gateway'),
    rateLimit: rateLimit(read),
    trustedDocuments: trustedDocuments ? resolve(trustedDocuments) : undefined,
    corsOrigins: corsOrigins(read.optional('CORS_ORIGINS', 'none in production, * otherwise'), production),
    oidc: oidc(read),
    webhooks: webhooks(read),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return configFrom(new Settings(env));
}

/**
 * Every setting loadConfig reads, with its default as docs/configuration.md words it: a load with
 * nothing set reads them all, those of switched-off features included.
 */
export function settingsRead(): ReadonlyMap<string, string> {
  const read = new Settings({});
  configFrom(read);
  return read.defaults;
}
