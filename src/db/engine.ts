import { mkdirSync, accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlDriverAdapterFactory, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PreparedStatements } from '../config.js';
import { creatingMissingDatabase } from './create-database.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { createDataDirectory, startPglite } from './pglite.js';
import { readTemplate } from './pglite-template.js';
import { shareOverSocket, type SharedDatabase } from './pglite-socket.js';
import { preparedMode, statementNames } from './prepared.js';
import { ScopedPool } from './row-security.js';
import { DatabaseStartError } from './start-error.js';

export { DatabaseStartError };

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
  /** What `queryRows` prepares statements as on PostgreSQL (replicas follow it); none on the embedded database. */
  statementNames?: (sql: string) => string | undefined;
  /**
   * Calls `onPayload` with the payload of every notification on `channel` (LISTEN/NOTIFY) until the
   * engine closes; with `undefined` after a lost connection, when some may have been missed.
   */
  listen(channel: string, onPayload: (payload: string | undefined) => void): Promise<void>;
  close(): Promise<void>;
  /** The connection pool's counts, for metrics; the embedded database has none. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
}

const RELISTEN_DELAY_MS = 1_000;

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
 * the template (pglite-template.ts); in memory, an empty one with `fromTemplate` false.
 */
export async function openPglite(
  dataDir: string | undefined,
  { share = false, fromTemplate = true } = {},
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
    client = dataDir
      ? await startPglite(location)
      : await startPglite(undefined, fromTemplate ? await readTemplate() : undefined);
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
    // In process: nothing can be lost, and closing the database ends the subscription.
    listen: async (channel, onPayload) => void (await pglite.listen(channel, (payload) => onPayload(payload))),
    close,
  };
}

export function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

/** How the gateway reaches a PostgreSQL server. */
export interface PostgresSettings {
  url: string;
  /** PostgreSQL itself when `url` is a pooler in transaction mode: sessions (LISTEN, migrations) go there. */
  directUrl?: string;
  poolSize: number;
  preparedStatements?: PreparedStatements;
}

/** A first statement on `pool`, or a start error naming where PostgreSQL could not be reached. */
async function reach(pool: pg.Pool, url: string): Promise<void> {
  try {
    await creatingMissingDatabase(url, () => pool.query('SELECT 1'));
  } catch (error) {
    if (error instanceof DatabaseStartError) throw error;
    const reason = error instanceof Error && error.message ? `: ${error.message.split('\n')[0]}` : '';
    throw new DatabaseStartError(`cannot reach PostgreSQL at ${describeUrl(url)}${reason}`);
  }
}

export async function openPostgres(settings: PostgresSettings): Promise<DatabaseEngine> {
  const { url, directUrl = url, poolSize } = settings;
  const pooled = directUrl !== url;
  // Pools of our own, shared by Prisma and the schema engine, so closing them ends every connection.
  const pool = new ScopedPool({ connectionString: url, max: poolSize });
  // Sessions through a pooler in transaction mode would change server connection between transactions.
  const sessions = pooled ? new pg.Pool({ connectionString: directUrl, max: 2 }) : pool;
  let mode: 'named' | 'unnamed';
  try {
    // The database is created on PostgreSQL itself: a pooler names only databases it is told of.
    if (pooled) await reach(sessions, directUrl);
    await reach(pool, url);
    mode = await preparedMode(settings.preparedStatements ?? 'auto', pool, pooled);
  } catch (error) {
    await Promise.all([pool.end(), pooled && sessions.end()]);
    throw error;
  }
  const names = statementNames(mode);
  const location = pooled
    ? `${describeUrl(url)} (a pooler; sessions at ${describeUrl(directUrl)}; read plans ${mode})`
    : describeUrl(url) + (mode === 'unnamed' ? ' (read plans unnamed)' : '');
  const listeners: pg.Client[] = [];
  let closed = false;
  /** A connection of its own per channel (a pooled one would be handed to queries); reconnects after a loss. */
  async function listen(channel: string, onPayload: (payload: string | undefined) => void): Promise<void> {
    const client = new pg.Client({ connectionString: directUrl });
    client.on('notification', (message) => onPayload(message.payload));
    client.on('error', () => {
      if (listeners.includes(client)) listeners.splice(listeners.indexOf(client), 1);
      void client.end().catch(() => {});
      if (closed) return;
      onPayload(undefined);
      const retry = () =>
        void listen(channel, onPayload).then(
          () => onPayload(undefined),
          () => !closed && setTimeout(retry, RELISTEN_DELAY_MS),
        );
      setTimeout(retry, RELISTEN_DELAY_MS);
    });
    await client.connect();
    listeners.push(client);
    await client.query(`LISTEN "${channel}"`);
  }
  const queryAdapter = new PrismaPg(pool);
  return {
    kind: 'postgres',
    adapter: pooled ? new PrismaPg(sessions) : queryAdapter,
    queryAdapter,
    location,
    query: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[],
    queryRows: (sql, args) => queryRows(pool, names, sql, args),
    statementNames: names,
    listen,
    pool,
    async close() {
      closed = true;
      await Promise.all(listeners.map((client) => client.end()));
      await Promise.all([pool.end(), pooled && sessions.end()]);
    },
  };
}
