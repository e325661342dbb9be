import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { creatingMissingDatabase } from '../../src/db/create-database.js';
import { openDatabase, type Database, type Prisma } from '../../src/db/index.js';
import { startPglite } from '../../src/db/pglite.js';
import { readTemplate } from '../../src/db/pglite-template.js';
import { seedDemo } from '../../src/db/seed/index.js';
import type { DemoKeys } from '../../src/db/seed/keys.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';

/** The PostgreSQL server of the suites that need one whatever the engine of the others (TEST_POSTGRES_URL in CI). */
export const postgresServerUrl = () =>
  process.env.TEST_DATABASE_URL || process.env.TEST_POSTGRES_URL || 'postgresql://postgres@127.0.0.1:5432/test';

/** A login role that is not a superuser: the owner of a database whose row-level security must hold. */
export const tableOwnerRole = 'gateway_table_owner';

/**
 * The demo data seeded once per run (seedTemplates), which each file's database copies: seeding is
 * most of a file's own database. Set in the environment the test files inherit.
 */
interface SeededTemplates {
  /** A PGlite data directory as `dumpDataDir` writes it. */
  pglite?: { file: string; keys: DemoKeys };
  /** A database on the PostgreSQL server of `serverUrl`, for `CREATE DATABASE ... TEMPLATE`. */
  postgres?: { serverUrl: string; name: string; keys: DemoKeys };
}

const root = new URL('../..', import.meta.url).pathname;
const seededVariable = 'TEST_SEEDED_TEMPLATES';
const seeded = (): SeededTemplates => JSON.parse(process.env[seededVariable] ?? '{}');

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A client of the server of `serverUrl`, on the database it names (created when missing, as the server creates DATABASE_URL's). */
async function adminOf(serverUrl: string): Promise<pg.Client> {
  return creatingMissingDatabase(serverUrl, async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    return client;
  });
}

function urlOf(serverUrl: string, name: string, owner?: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (owner) url.username = owner;
  return url.toString();
}

/**
 * Seeds the demo data once for the run on the engine of TEST_DATABASE_URL, for every file to copy
 * (the suite's global set-up). Returns what removes it again.
 */
export async function seedTemplates(): Promise<() => Promise<void>> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const directory = mkdtempSync(join(tmpdir(), 'gateway-seeded-'));
    const pglite = await startPglite(undefined, await readTemplate());
    try {
      const prisma: Prisma = new PrismaClient({
        adapter: new PrismaPGlite(pglite),
        log: [{ emit: 'event', level: 'query' }],
      });
      const keys = await seedDemo(prisma);
      await prisma.$disconnect();
      // Everything in the data files: a database loaded from the dump has no log to replay.
      await pglite.exec('CHECKPOINT');
      const file = join(directory, 'pglite.tar');
      writeFileSync(file, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
      process.env[seededVariable] = JSON.stringify({ pglite: { file, keys } } satisfies SeededTemplates);
    } finally {
      await pglite.close();
    }
    return async () => rmSync(directory, { recursive: true, force: true });
  }
  const name = `gateway_seeded_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = await adminOf(serverUrl);
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
    await admin.end();
  };
  try {
    await admin.query(`CREATE DATABASE ${quote(name)}`);
    const databaseUrl = urlOf(serverUrl, name);
    // In a process of its own: Vitest's module runner, which runs the global set-up, cannot load Prisma's schema engine.
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    // Closed again before any file copies it: CREATE DATABASE ... TEMPLATE refuses a template with sessions.
    const database = await openDatabase({ databaseUrl, poolSize: 1 });
    const keys = await seedDemo(database.prisma).finally(() => database.close());
    process.env[seededVariable] = JSON.stringify({ postgres: { serverUrl, name, keys } } satisfies SeededTemplates);
  } catch (error) {
    await drop();
    throw error;
  }
  return drop;
}

/**
 * A migrated, seeded database of this test file's own: PGlite in memory by default, or a new
 * database on the PostgreSQL server of `serverUrl` (TEST_DATABASE_URL by default), whose `url`
 * other processes may open, dropped again by `drop`. A copy of the run's seeded template where there
 * is one (on another server, or with `owner`, seeded here). With `owner`, the database belongs to
 * that role (made when missing, without superuser rights), which connects, migrates and seeds it.
 */
export async function openTestDatabase(
  serverUrl = process.env.TEST_DATABASE_URL,
  { owner }: { owner?: string } = {},
): Promise<{ database: Database; keys: DemoKeys; url?: string; drop(): Promise<void> }> {
  if (!serverUrl) {
    const template = seeded().pglite;
    const database = await openDatabase({ pgliteTemplate: template && new Blob([readFileSync(template.file)]) });
    const keys = template?.keys ?? (await seedDemo(database.prisma));
    return { database, keys, drop: () => database.close() };
  }
  const name = `gateway_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  // A copy's tables belong to the template's owner, which `owner` must be.
  const template = seeded().postgres;
  const copied = !owner && template?.serverUrl === serverUrl ? template : undefined;
  const admin = await adminOf(serverUrl);
  if (owner) {
    // Roles belong to the whole server: another suite may have made it first.
    await admin.query(`CREATE ROLE "${owner}" LOGIN NOSUPERUSER NOBYPASSRLS`).catch((error) => {
      if (error.code !== '42710' && error.code !== '23505') throw error;
    });
  }
  await admin.query(
    `CREATE DATABASE ${quote(name)}${owner ? ` OWNER ${quote(owner)}` : ''}${copied ? ` TEMPLATE ${quote(copied.name)}` : ''}`,
  );
  const url = urlOf(serverUrl, name, owner);
  let database: Database | undefined;
  let keys: DemoKeys;
  try {
    database = await openDatabase({ databaseUrl: url, poolSize: 4 });
    keys = copied?.keys ?? (await seedDemo(database.prisma));
  } catch (error) {
    // A failed migration or seed must not leave the database behind.
    await database?.close();
    await admin.query(`DROP DATABASE ${quote(name)} WITH (FORCE)`);
    await admin.end();
    throw error;
  }
  const opened = database;
  return {
    database: opened,
    keys,
    url,
    async drop() {
      await opened.close();
      await admin.query(`DROP DATABASE ${quote(name)} WITH (FORCE)`);
      await admin.end();
    },
  };
}
