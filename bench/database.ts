import pg from 'pg';
import { onCleanup } from './cleanup.js';
import { isAlive } from '../src/db/data-dir-lock.js';

export interface BenchDatabase {
  name: string;
  /** URL of the bench database, on the admin URL's server with its credentials. */
  url: string;
  /** `SELECT version()` of the server, for the report. */
  serverVersion: string;
  /** With an owner: the URL of the database for its owner, a role that is no superuser. */
  ownerUrl?: string;
}

/** The process named in a bench database's name is gone and nobody is connected: a killed run's leftover. */
async function leftovers(admin: pg.Client): Promise<string[]> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database d WHERE datname ~ '^bench_[0-9a-z]+_[0-9]+$'
       AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
  );
  return rows.map((row) => row.datname).filter((name) => !isAlive(Number(name.split('_').at(-1))));
}

/**
 * Creates an empty database of its own on the admin URL's server, owned by `owner` when given (a login
 * role made when missing, without superuser rights); it is dropped by the cleanup.
 */
export async function createBenchDatabase(adminUrl: string, owner?: string): Promise<BenchDatabase> {
  // Unique per run, so two benches never collide; the pid lets a later run recognize a killed run's database.
  const name = `bench_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (const leftover of await leftovers(admin)) {
      await admin.query(`DROP DATABASE IF EXISTS "${leftover}"`);
      console.log(`dropped ${leftover}, left behind by a killed run`);
    }
    const { rows } = await admin.query<{ version: string }>('SELECT version()');
    if (owner) {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [owner]);
      if (!rowCount) await admin.query(`CREATE ROLE "${owner}" LOGIN NOSUPERUSER NOBYPASSRLS`);
    }
    await admin.query(`CREATE DATABASE "${name}"${owner ? ` OWNER "${owner}"` : ''}`);
    onCleanup(`drop database ${name}`, () => dropDatabase(adminUrl, name));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const ownerUrl = owner ? new URL(url) : undefined;
    if (ownerUrl) ownerUrl.username = owner!;
    return {
      name,
      url: url.toString(),
      ownerUrl: ownerUrl?.toString(),
      serverVersion: rows[0].version.split(' on ')[0],
    };
  } finally {
    await admin.end();
  }
}

/**
 * A copy of the bench database `source` (CREATE DATABASE ... TEMPLATE, so nobody may be connected to
 * it), named after it with `tag` (letters) before the pid, so that a later run drops it too.
 */
export async function copyBenchDatabase(
  adminUrl: string,
  source: BenchDatabase,
  tag: string,
): Promise<Pick<BenchDatabase, 'name' | 'url'>> {
  const name = source.name.replace(/_(\d+)$/, `${tag}_$1`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${source.name}"`);
  } finally {
    await admin.end();
  }
  onCleanup(`drop database ${name}`, () => dropDatabase(adminUrl, name));
  const url = new URL(source.url);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    // FORCE ends connections a killed server may have left open.
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    console.log(`dropped database ${name}`);
  } finally {
    await admin.end();
  }
}
