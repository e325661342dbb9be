import { mkdirSync, accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/** A database the gateway can run on: the driver adapter Prisma and the schema engine share, and how to close it. */
export interface DatabaseEngine {
  kind: 'pglite' | 'postgres';
  adapter: SqlMigrationAwareDriverAdapterFactory;
  /** Where the data lives, for messages: a directory or host:port/database. */
  location: string;
  /** Runs one statement outside Prisma (for the migrations check before Prisma's engines are loaded). */
  query<Row>(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}

export class DatabaseStartError extends Error {}

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

export async function openPglite(dataDir: string | undefined): Promise<DatabaseEngine> {
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
  const client = await PGlite.create(dataDir ? location : undefined);
  return {
    kind: 'pglite',
    adapter: new PrismaPGlite(client),
    location,
    query: async <Row>(sql: string) => (await client.query<Row>(sql)).rows,
    close: () => client.close(),
  };
}

export function describeUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

export async function openPostgres(url: string, poolSize: number): Promise<DatabaseEngine> {
  // One pool of our own, shared by Prisma and the schema engine, so closing it ends every connection.
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const location = describeUrl(url);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end();
    const reason = error instanceof Error && error.message ? `: ${error.message.split('\n')[0]}` : '';
    throw new DatabaseStartError(`cannot reach PostgreSQL at ${location}${reason}`);
  }
  return {
    kind: 'postgres',
    adapter: new PrismaPg(pool),
    location,
    query: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[],
    close: () => pool.end(),
  };
}
