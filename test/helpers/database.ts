import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { creatingMissingDatabase } from '../../src/db/create-database.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { seedDemo } from '../../src/db/seed/index.js';
import type { DemoKeys } from '../../src/db/seed/keys.js';

/** The PostgreSQL server of the suites that need one whatever the engine of the others (TEST_POSTGRES_URL in CI). */
export const postgresServerUrl = () =>
  process.env.TEST_DATABASE_URL || process.env.TEST_POSTGRES_URL || 'postgresql://postgres@127.0.0.1:5432/test';

/** A login role that is not a superuser: the owner of a database whose row-level security must hold. */
export const tableOwnerRole = 'gateway_table_owner';

/**
 * A migrated, seeded database of this test file's own: PGlite in memory by default, or a new
 * database on the PostgreSQL server of `serverUrl` (TEST_DATABASE_URL by default), whose `url`
 * other processes may open, dropped again by `drop`. With `owner`, the database belongs to that role
 * (made when missing, without superuser rights), which connects, migrates and seeds it.
 */
export async function openTestDatabase(
  serverUrl = process.env.TEST_DATABASE_URL,
  { owner }: { owner?: string } = {},
): Promise<{ database: Database; keys: DemoKeys; url?: string; drop(): Promise<void> }> {
  if (!serverUrl) {
    const database = await openDatabase({});
    const keys = await seedDemo(database.prisma);
    return { database, keys, drop: () => database.close() };
  }
  const name = `gateway_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  // The database TEST_DATABASE_URL names is created when missing, as the server creates DATABASE_URL's.
  const admin = await creatingMissingDatabase(serverUrl, async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    return client;
  });
  if (owner) {
    // Roles belong to the whole server: another suite may have made it first.
    await admin.query(`CREATE ROLE "${owner}" LOGIN NOSUPERUSER NOBYPASSRLS`).catch((error) => {
      if (error.code !== '42710' && error.code !== '23505') throw error;
    });
  }
  await admin.query(`CREATE DATABASE "${name}"${owner ? ` OWNER "${owner}"` : ''}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (owner) url.username = owner;
  let database: Database | undefined;
  let keys: DemoKeys;
  try {
    database = await openDatabase({ databaseUrl: url.toString(), poolSize: 4 });
    keys = await seedDemo(database.prisma);
  } catch (error) {
    // A failed migration or seed must not leave the database behind.
    await database?.close();
    await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    await admin.end();
    throw error;
  }
  const opened = database;
  return {
    database: opened,
    keys,
    url: url.toString(),
    async drop() {
      await opened.close();
      await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
