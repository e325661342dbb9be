import { PrismaClient } from '../generated/prisma/client.js';
import { batchPerRequest } from './batching.js';
import { TOOL_BOUNDS, type DatabaseEngine } from './engine.js';
import { applyMigrations, hasPendingMigrations } from './migrate.js';
import { countStatement } from '../observability/requests.js';
import { traceStatement, tracing } from '../observability/tracing.js';
import { openEngine, type DatabaseSettings, type DatabaseUser } from './open-engine.js';
import { replicaReads, routed, routedAdapter, type ReplicaReads } from './read-routing.js';
import { ReplicaSet } from './replicas.js';

export type Prisma = PrismaClient<'query'>;

export interface Database {
  engine: DatabaseEngine;
  prisma: Prisma;
  /** Listeners told of every SQL statement Prisma sends (used to count statements per request). */
  onQuery: Set<(sql: string) => void>;
  /**
   * Runs one statement of the gateway's own (a read plan) on the connections Prisma uses, told to
   * `onQuery` like Prisma's; the rows come as arrays of column values. Prisma's raw query path would
   * compile and map it first (about 0.5 ms of CPU a statement) and cannot prepare it.
   */
  queryRows(sql: string, args: unknown[]): Promise<unknown[][]>;
  /** The streaming replicas that answer query operations (a server with DATABASE_REPLICA_URLS); undefined: everything on the primary. */
  replicas: ReplicaReads | undefined;
  close(): Promise<void>;
}

let current: Database | undefined;

/** The open database; the Prisma client stays out of the GraphQL context and is read from here. */
export function db(): Database {
  if (!current) throw new Error('the database is not open');
  return current;
}

export function prisma(): Prisma {
  return db().prisma;
}

/** The replicas of DATABASE_REPLICA_URLS, for a server on PostgreSQL; polled from now on. */
function openReplicas(settings: DatabaseSettings, engine: DatabaseEngine): ReplicaSet | undefined {
  if (!settings.replicaUrls?.length || !engine.statementNames) return undefined;
  const set = new ReplicaSet(
    settings.replicaUrls,
    settings.poolSize ?? 10,
    settings.replicaMaxLagMs ?? 1000,
    settings.databaseBounds ?? TOOL_BOUNDS,
    (sql) => engine.poll(sql),
    engine.statementNames,
  );
  set.start();
  return set;
}

/** Opens the configured engine (see openEngine), applies pending migrations, and makes it the process's database. */
export async function openDatabase(settings: DatabaseSettings, user: DatabaseUser = 'tool'): Promise<Database> {
  const engine = await openEngine(settings, user);
  if (await hasPendingMigrations(engine)) await applyMigrations(engine.adapter);
  // Only a server answers query operations; the command-line tools write.
  const set = user === 'server' ? openReplicas(settings, engine) : undefined;
  const bounds = settings.databaseBounds;
  const client: Prisma = new PrismaClient({
    adapter: set ? routedAdapter(engine.queryAdapter, set) : engine.queryAdapter,
    log: [{ emit: 'event', level: 'query' }],
    // A transaction waits for its connection as a statement does, and lasts at most a statement's time.
    ...(bounds && { transactionOptions: { maxWait: bounds.connectTimeoutMs, timeout: bounds.statementTimeoutMs } }),
  });
  batchPerRequest(client);
  // Each statement also counts for the HTTP request it runs for (its log line and metrics).
  const onQuery = new Set<(sql: string) => void>([countStatement]);
  client.$on('query', (event) => {
    for (const listener of onQuery) listener(event.query);
  });
  const run = set
    ? (sql: string, args: unknown[]) =>
        routed(
          set,
          (replica) => set.queryRows(replica, sql, args),
          () => engine.queryRows(sql, args),
          sql,
        )
    : engine.queryRows;
  /** A statement of the gateway's own, told to `onQuery` like Prisma's. */
  const counted = (query: (sql: string, args: unknown[]) => Promise<unknown[][]>) => (sql: string, args: unknown[]) => {
    for (const listener of onQuery) listener(sql);
    return tracing() ? traceStatement(sql, () => query(sql, args)) : query(sql, args);
  };
  const database: Database = {
    engine,
    prisma: client,
    onQuery,
    queryRows: counted(run),
    replicas: set && replicaReads(set, counted(engine.queryRows)),
    async close() {
      await client.$disconnect();
      await set?.close();
      await engine.close();
      if (current === database) current = undefined;
    },
  };
  current = database;
  return database;
}
