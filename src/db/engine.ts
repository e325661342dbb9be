import { mkdirSync, accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { creatingMissingDatabase } from './create-database.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { shareOverSocket, type SharedDatabase } from './pglite-socket.js';
import { ScopedClient } from './row-security.js';
import { DatabaseStartError } from './start-error.js';

export { DatabaseStartError };

/** A database the gateway can run on: the driver adapter Prisma and the schema engine share, and how to close it. */
export interface DatabaseEngine {
  kind: 'pglite' | 'postgres';
  adapter: SqlMigrationAwareDriverAdapterFactory;
  /** Where the data lives, for messages: a directory or host:port/database. */
  location: string;
  /** Runs one statement outside Prisma (for the migrations check before Prisma's engines are loaded). */
  query<Row>(sql: string): Promise<Row[]>;
  /** Runs one parameterized statement of the gateway's own (a read plan); rows as arrays of column values. */
  queryRows(sql: string, args: unknown[]): Promise<unknown[][]>;
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

/** Distinct statements prepared on each PostgreSQL connection; others are planned at every run. */
const MAX_PREPARED_STATEMENTS = 500;

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
 * `share`, also served to other processes on the data directory's socket.
 */
export async function openPglite(dataDir: string | undefined, { share = false } = {}): Promise<DatabaseEngine> {
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
    client = await PGlite.create(dataDir ? location : undefined);
    if (dataDir && share) shared = await shareOverSocket(client, dataDir);
  } catch (error) {
    await close();
    throw error;
  }
  const pglite = client;
  return {
    kind: 'pglite',
    adapter: new PrismaPGlite(pglite),
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

export async function openPostgres(url: string, poolSize: number): Promise<DatabaseEngine> {
  // One pool of our own, shared by Prisma and the schema engine, so closing it ends every connection.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, Client: ScopedClient });
  const location = describeUrl(url);
  try {
    await creatingMissingDatabase(url, () => pool.query('SELECT 1'));
  } catch (error) {
    await pool.end();
    if (error instanceof DatabaseStartError) throw error;
    const reason = error instanceof Error && error.message ? `: ${error.message.split('\n')[0]}` : '';
    throw new DatabaseStartError(`cannot reach PostgreSQL at ${location}${reason}`);
  }
  const listeners: pg.Client[] = [];
  let closed = false;
  // Read plans repeat a few statement texts with other values: prepared once per connection, PostgreSQL
  // plans each once (planning was as long as running for a one-board read). Bounded, so a stream of
  // distinct operations cannot grow every connection without end.
  const prepared = new Map<string, string>();
  const statementName = (sql: string) => {
    let name = prepared.get(sql);
    if (!name && prepared.size < MAX_PREPARED_STATEMENTS) prepared.set(sql, (name = `read_plan_${prepared.size}`));
    return name;
  };
  /** A connection of its own per channel (a pooled one would be handed to queries); reconnects after a loss. */
  async function listen(channel: string, onPayload: (payload: string | undefined) => void): Promise<void> {
    const client = new pg.Client({ connectionString: url });
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
  return {
    kind: 'postgres',
    adapter: new PrismaPg(pool),
    location,
    query: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[],
    queryRows: async (sql, args) =>
      (await pool.query({ name: statementName(sql), text: sql, values: args, rowMode: 'array' })).rows,
    listen,
    pool,
    async close() {
      closed = true;
      await Promise.all(listeners.map((client) => client.end()));
      await pool.end();
    },
  };
}
