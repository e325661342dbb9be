import { mkdirSync, accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import type { SqlDriverAdapterFactory, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { DatabaseBounds, PreparedStatements } from '../config.js';
import { logger } from '../observability/logger.js';
import { creatingMissingDatabase } from './create-database.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { createDataDirectory, startPglite } from './pglite.js';
import { readTemplate } from './pglite-template.js';
import { shareOverSocket, type SharedDatabase } from './pglite-socket.js';
import { preparedMode, statementNames } from './prepared.js';
import { describeUrl, parseConnectionString } from './connection-string.js';
import { Listeners, type Listening } from './listen.js';
import { pollPool, withinAnswerTime } from './polls.js';
import { defaultWriteSlots, GatewayPool, type SessionTimeouts } from './pool.js';
import { DatabaseStartError } from './start-error.js';

export { DatabaseStartError, describeUrl };

/** A database the gateway can run on: the driver adapters of Prisma and of the schema engine, and how to close it. */
export interface DatabaseEngine {
  kind: 'pglite' | 'postgres';
  /** The schema engine's (migrations): on a session of its own, never through a pooler. */
  adapter: SqlMigrationAwareDriverAdapterFactory;
  /** Prisma's queries: the pool on DATABASE_URL; `adapter` where there is no pooler. */
  queryAdapter: SqlDriverAdapterFactory;
  /** Where the data lives, for messages: a directory or host:port/database. */
  location: string;
  /** Runs one statement outside Prisma (for the migrations check before Prisma's engines are loaded). */
  query<Row>(sql: string): Promise<Row[]>;
  /** Runs one parameterized statement of the gateway's own (a read plan); rows as arrays of column values. */
  queryRows(sql: string, args: unknown[]): Promise<unknown[][]>;
  /** Runs a health check's statement on a connection of its own with a poll's short bounds (busy requests never hold it up). */
  poll(sql: string): Promise<unknown[][]>;
  /** What `queryRows` prepares statements as on PostgreSQL (replicas follow it); none on the embedded database. */
  statementNames?: (sql: string) => string | undefined;
  /**
   * Calls `onPayload` with the payload of every notification on `channel` (LISTEN/NOTIFY) until the
   * engine closes; with `undefined` after a lost connection and once it stands again, when some may
   * have been missed. Resolves once it first stands.
   */
  listen(channel: string, onPayload: (payload: string | undefined) => void): Promise<Listening>;
  close(): Promise<void>;
  /** The connection pool's counts, for metrics; the embedded database has none. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
}

/** Runs a statement of the gateway's own on `pool`, prepared under the name `names` gives it (if any); rows as arrays. */
export async function queryRows(
  pool: pg.Pool,
  names: (sql: string) => string | undefined,
  sql: string,
  args: unknown[],
): Promise<unknown[][]> {
  return (await pool.query({ name: names(sql), text: sql, values: args, rowMode: 'array' })).rows;
}

// mkdirSync's `recursive` loops forever under /proc on Node 20; walking up by hand fails cleanly instead.
function makeDirectory(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
    makeDirectory(dirname(path));
    mkdirSync(path);
  }
}

/**
 * PGlite in memory, or in `dataDir` under its lock (refused when a live process holds it); with
 * `share`, also served to other processes on the data directory's socket. A new database starts from
 * the template (pglite-template.ts); in memory, from `template` instead when given (a data directory
 * as PGlite dumps it: the test suite's seeded one).
 */
export async function openPglite(
  dataDir: string | undefined,
  { share = false, template }: { share?: boolean; template?: Blob } = {},
): Promise<DatabaseEngine> {
  let location = 'memory://';
  if (dataDir) {
    location = join(dataDir, 'pglite');
    try {
      makeDirectory(location);
      accessSync(location, constants.W_OK);
    } catch {
      throw new DatabaseStartError(`data directory ${dataDir} is not writable (set DATA_DIR to a writable directory)`);
    }
  }
  const lock = dataDir ? acquireDataDirLock(dataDir) : undefined;
  let client: PGlite | undefined;
  let shared: SharedDatabase | undefined;
  // Also undoes a start that failed half-way.
  const close = async () => {
    await shared?.close();
    await client?.close();
    lock?.release();
  };
  try {
    if (dataDir) await createDataDirectory(location);
    // In memory, the template (made at install) spares initdb and the migrations too.
    client = dataDir ? await startPglite(location) : await startPglite(undefined, template ?? (await readTemplate()));
    if (dataDir && share) shared = await shareOverSocket(client, dataDir);
  } catch (error) {
    await close();
    throw error;
  }
  const pglite = client;
  const adapter = new PrismaPGlite(pglite);
  return {
    kind: 'pglite',
    adapter,
    queryAdapter: adapter,
    location,
    query: async <Row>(sql: string) => (await pglite.query<Row>(sql)).rows,
    queryRows: async (sql, args) => (await pglite.query<unknown[]>(sql, args, { rowMode: 'array' })).rows,
    poll: async (sql) => (await pglite.query<unknown[]>(sql, [], { rowMode: 'array' })).rows,
    // In process: nothing can be lost, and closing the database ends the subscription.
    listen: async (channel, onPayload) => {
      await pglite.listen(channel, (payload) => onPayload(payload));
      return { standing: true };
    },
    close,
  };
}

/** How the gateway reaches a PostgreSQL server. */
export interface PostgresSettings {
  url: string;
  /** PostgreSQL itself when `url` is a pooler in transaction mode: sessions (LISTEN, migrations) go there. */
  directUrl?: string;
  poolSize: number;
  preparedStatements?: PreparedStatements;
  /** How long to wait on the server; unset (the command-line tools): a connection 30 s, statements unbounded. */
  bounds?: DatabaseBounds;
}

/** The command-line tools' bounds: a connection waits 30 s, a statement as long as it takes (an import, a migration). */
export const TOOL_BOUNDS: DatabaseBounds = { connectTimeoutMs: 30_000, statementTimeoutMs: 0, lockTimeoutMs: 0 };

/** The reason a start failed, in one line. */
const reasonOf = (error: unknown) =>
  error instanceof Error && error.message ? `: ${error.message.split('\n')[0]}` : '';

/** A first statement on `pool`, or a start error naming where PostgreSQL could not be reached. */
async function reach(pool: pg.Pool, url: string): Promise<void> {
  try {
    await creatingMissingDatabase(url, () => pool.query('SELECT 1'));
  } catch (error) {
    if (error instanceof DatabaseStartError) throw error;
    throw new DatabaseStartError(`cannot reach PostgreSQL at ${describeUrl(url)}${reasonOf(error)}`);
  }
}

/** A pooler in session mode refuses startup parameters it does not know (PgBouncer's "unsupported startup parameter"). */
const refusesStartupParameters = (error: unknown) => /unsupported startup parameter/i.test(String(error));

/** Why statements through a pooler in transaction mode have no bound on the server, if they have none. */
async function unboundedThroughPooler(pool: pg.Pool): Promise<string | undefined> {
  const { rows } = await pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
  if (rows[0]?.statement_timeout !== '0') return undefined;
  return "statements through the pooler have no statement_timeout on the server (the pooler hands its connections to other clients, so the gateway sets none): set one for the role, ALTER ROLE <role> SET statement_timeout = '30s'; meanwhile the gateway cancels a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS itself";
}

export async function openPostgres(settings: PostgresSettings): Promise<DatabaseEngine> {
  const { url, directUrl = url, poolSize, bounds = TOOL_BOUNDS } = settings;
  const pooled = directUrl !== url;
  try {
    for (const each of [url, directUrl]) parseConnectionString(each);
  } catch (error) {
    throw new DatabaseStartError((error as Error).message);
  }
  let sessionTimeouts: SessionTimeouts = pooled ? 'none' : 'startup';
  // Pools of our own, shared by Prisma and the schema engine, so closing them ends every connection.
  const openPool = () =>
    new GatewayPool({ url, max: poolSize, bounds, sessionTimeouts, writeSlots: defaultWriteSlots(poolSize) });
  let pool = openPool();
  // Migrations and the database's creation on sessions of their own (a pooler in transaction mode would
  // change server connection between transactions), with no bound on a statement: a migration may be long.
  const unbounded = { ...bounds, statementTimeoutMs: 0, lockTimeoutMs: 0 };
  const sessions = new GatewayPool({ url: directUrl, max: 2, bounds: unbounded, sessionTimeouts: 'none' });
  let mode: 'named' | 'unnamed';
  try {
    // The database is created on PostgreSQL itself: a pooler names only databases it is told of.
    await reach(sessions, directUrl);
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      if (!refusesStartupParameters(error)) throw error;
      // A pooler in session mode: the session is the client's own, so SET holds for it.
      await pool.end();
      sessionTimeouts = 'set';
      pool = openPool();
    }
    await reach(pool, url);
    mode = await preparedMode(settings.preparedStatements ?? 'auto', pool, pooled);
    const warning = pooled && settings.bounds ? await unboundedThroughPooler(pool) : undefined;
    if (warning) logger.warn(warning);
  } catch (error) {
    await Promise.all([pool.end(), sessions.end()]);
    if (error instanceof DatabaseStartError) throw error;
    throw new DatabaseStartError(`cannot reach PostgreSQL at ${describeUrl(url)}${reasonOf(error)}`);
  }
  const names = statementNames(mode);
  const location = pooled
    ? `${describeUrl(url)} (a pooler; sessions at ${describeUrl(directUrl)}; read plans ${mode})`
    : describeUrl(url) + (mode === 'unnamed' ? ' (read plans unnamed)' : '');
  const listeners = new Listeners(directUrl, bounds);
  const polls = pollPool(url);
  const queryAdapter = new PrismaPg(pool);
  return {
    kind: 'postgres',
    adapter: new PrismaPg(sessions),
    queryAdapter,
    location,
    query: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[],
    queryRows: (sql, args) => queryRows(pool, names, sql, args),
    poll: (sql) => withinAnswerTime(queryRows(polls, () => undefined, sql, [])),
    statementNames: names,
    listen: (channel, onPayload) => listeners.listen(channel, onPayload),
    pool,
    async close() {
      await listeners.close();
      await Promise.all([pool.end(), sessions.end(), polls.end()]);
    },
  };
}
