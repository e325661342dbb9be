import { type GatewayNode, gatewayNodes } from './peer-setup.js';
import type { LiveSettings } from './live.js';
import type { WebhookSettings } from './webhooks.js';

/** Settings of `npm run bench`, from the environment; BENCHMARKS.md lists them. */
/**
 * How the servers are loaded: `load`, BENCH_CONNECTIONS clients at once on the shared machine;
 * `sequential`, one client sending its requests in sequence (nothing contends, so PostgreSQL's
 * execution time is a request's cost); `pinned`, as `load` with PostgreSQL on CPU 0 and the servers
 * and the load generator on CPU 1 (the database is the bottleneck).
 */
export const benchModes = ['load', 'sequential', 'pinned'] as const;
export type BenchMode = (typeof benchModes)[number];

/**
 * Where the audited peer's trigger finds its user: `request`, set by the peer's pgSettings per
 * request (PostGraphile then wraps its statements in a transaction with set_config, as a deployment
 * that knows its users does); `connection`, once per connection, so that the trigger's cost is
 * measured alone.
 */
export const auditedUserSources = ['request', 'connection'] as const;
export type AuditedUserSource = (typeof auditedUserSources)[number];

/** In the pinned mode: the CPU of the bench's PostgreSQL, and the one of everything else. */
export const pinnedCpus = { database: 0, servers: 1 } as const;

export interface BenchConfig {
  /** Admin connection to the PostgreSQL server the bench database is created on. @default postgresql://postgres@127.0.0.1:5432/test */
  adminUrl: string;
  /** No DATABASE_URL given: `npm run bench` runs a PostgreSQL cluster of its own (pg_stat_statements loaded). */
  ownServer: boolean;
  mode: BenchMode;
  /** Seconds of measured load per case and server. @default 10 */
  duration: number;
  /** Seconds of unmeasured load before each measurement; 0 for none. @default 3 */
  warmup: number;
  /** Concurrent HTTP connections of the load generator. @default 32 */
  connections: number;
  /** Connections in the pools of the gateway, the peer and the floor server. @default 10 (the gateway's default) */
  poolSize: number;
  /** Measured runs per case of the gateway and of the peer, in turn; the report shows their median. @default 3 */
  rounds: number;
  /** The gateway's (and the floor's) runtime: Node 24, Node 22 (the peer's) or the `node` on PATH (BENCH_GATEWAY_NODE=path). @default 24 */
  gatewayNode: GatewayNode;
  /** Sequential requests per case that count statements and check bodies. @default 20 */
  samples: number;
  /** Only these case ids (comma separated), e.g. `a,b` or `live`. @default every case */
  cases: string[] | undefined;
  /** Start the gateway under `node --cpu-prof`, profiles written to this directory. @default off */
  profileDir: string | undefined;
  /** The live case (subscriptions); its renames run for `duration` seconds. */
  live: LiveSettings;
  /** The webhook case (deliveries to endpoints); its renames run for `duration` seconds. */
  webhooks: WebhookSettings;
  /**
   * Run the gateway with ROW_LEVEL_SECURITY=true, as the owner of the bench database (a role that is
   * no superuser, which row-level security would pass); the peer and the floor stay on the admin role.
   * @default false
   */
  rowLevelSecurity: boolean;
  /** @default request */
  auditedUser: AuditedUserSource;
  /** Where the results table goes (between its markers; the rest of the file is kept). @default BENCHMARKS.md */
  output: string | undefined;
}

function positive(name: string, fallback: number, zeroAllowed = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed))
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function loadBenchConfig(): BenchConfig {
  const output = process.env.BENCH_OUTPUT ?? 'BENCHMARKS.md';
  const gatewayNode = process.env.BENCH_GATEWAY_NODE || '24';
  const duration = positive('BENCH_DURATION', 10);
  // 0 skips the warm-up: for a quick functional look, not for figures.
  const warmup = positive('BENCH_WARMUP', 3, true);
  const mode = (process.env.BENCH_MODE || 'load') as BenchMode;
  if (!benchModes.includes(mode)) throw new Error(`BENCH_MODE can be ${benchModes.join(', ')}, got "${mode}"`);
  const ownServer = !process.env.DATABASE_URL;
  if (mode === 'pinned' && !ownServer)
    throw new Error("BENCH_MODE=pinned pins the bench's own PostgreSQL: leave DATABASE_URL unset");
  const auditedUser = (process.env.BENCH_AUDITED_USER || 'request') as AuditedUserSource;
  if (!auditedUserSources.includes(auditedUser))
    throw new Error(`BENCH_AUDITED_USER can be ${auditedUserSources.join(', ')}, got "${auditedUser}"`);
  if (!gatewayNodes.includes(gatewayNode as GatewayNode))
    throw new Error(`BENCH_GATEWAY_NODE can be ${gatewayNodes.join(', ')}, got "${gatewayNode}"`);
  return {
    adminUrl: process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test',
    ownServer,
    mode,
    duration,
    warmup,
    connections: mode === 'sequential' ? 1 : Math.round(positive('BENCH_CONNECTIONS', 32)),
    poolSize: Math.round(positive('DATABASE_POOL_SIZE', 10)),
    rounds: Math.round(positive('BENCH_ROUNDS', 3)),
    gatewayNode: gatewayNode as GatewayNode,
    samples: Math.round(positive('BENCH_SAMPLES', 20)),
    cases: process.env.BENCH_CASES ? process.env.BENCH_CASES.split(',').map((id) => id.trim()) : undefined,
    profileDir: process.env.BENCH_PROFILE_DIR || undefined,
    live: {
      subscribers: Math.round(positive('BENCH_LIVE_SUBSCRIBERS', 500)),
      perBoard: Math.round(positive('BENCH_LIVE_PER_BOARD', 10)),
      rate: positive('BENCH_LIVE_RATE', 20),
      seconds: duration,
      warmup,
    },
    webhooks: {
      endpoints: Math.round(positive('BENCH_WEBHOOK_ENDPOINTS', 20)),
      rate: positive('BENCH_WEBHOOK_RATE', 100),
      seconds: duration,
      warmup,
    },
    rowLevelSecurity: ['1', 'true', 'yes', 'on'].includes((process.env.BENCH_ROW_LEVEL_SECURITY ?? '').toLowerCase()),
    auditedUser,
    // BENCH_OUTPUT=- prints only, so a quick trial run does not overwrite the recorded figures.
    output: output === '-' ? undefined : output,
  };
}
