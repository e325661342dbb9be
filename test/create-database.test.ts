import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConnectionString } from '../src/db/connection-string.js';
import { openTestDatabase, postgresServerUrl } from './helpers/database.js';
import { startServer } from './helpers/processes.js';

// Creating databases needs a PostgreSQL server whatever the engine of the other suites.
const serverUrl = postgresServerUrl();
const [{ host, port }] = parseConnectionString(serverUrl).servers;
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
const withDatabase = (name: string, role?: string) => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (role) url.username = role;
  return url.toString();
};

const admin = new pg.Client({ connectionString: withDatabase('postgres') });
const created: string[] = [];
const noCreateRole = `gateway_no_createdb_${suffix}`;
const exists = async (name: string) =>
  (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;

beforeAll(async () => {
  await admin.connect();
  await admin.query(`CREATE ROLE ${noCreateRole} LOGIN NOCREATEDB`);
});
afterAll(async () => {
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`DROP ROLE IF EXISTS ${noCreateRole}`);
  await admin.end();
});

describe('a database named in DATABASE_URL that does not exist', () => {
  it('is created by the server when the role may, which then serves on it', async () => {
    const name = `gateway_created_${suffix}`;
    created.push(name);
    const server = startServer({ DATABASE_URL: withDatabase(name), PORT: '0' });
    const response = await fetch(`${await server.url}/ready`);
    expect(response.status).toBe(200);
    expect(server.lines.out).toContain(`created database "${name}" on ${host}:${port}`);
    expect(await exists(name)).toBe(true);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
  }, 60_000);

  it('stops the server with the createdb command when the role may not create it', async () => {
    const name = `gateway_refused_${suffix}`;
    const server = startServer({ DATABASE_URL: withDatabase(name, noCreateRole), PORT: '0' });
    expect(await server.exit).toBe(1);
    expect(server.lines.err).toEqual([
      `error: database "${name}" does not exist and could not be created (role "${noCreateRole}" may not create databases); ` +
        `create it with: createdb -h ${host} -p ${port} -O ${noCreateRole} ${name}`,
    ]);
    expect(await exists(name)).toBe(false);
  }, 60_000);
});

describe('TEST_DATABASE_URL naming a database that does not exist', () => {
  it('is created by the suite, which makes its per-file database beside it', async () => {
    const name = `gateway_suite_${suffix}`;
    created.push(name);
    const before = process.env.TEST_DATABASE_URL;
    process.env.TEST_DATABASE_URL = withDatabase(name);
    try {
      const { database, drop } = await openTestDatabase();
      expect(database.engine.location).not.toContain(name);
      await drop();
    } finally {
      // Assigning undefined would leave the string "undefined" to the files after this one in the worker.
      if (before === undefined) delete process.env.TEST_DATABASE_URL;
      else process.env.TEST_DATABASE_URL = before;
    }
    expect(await exists(name)).toBe(true);
  }, 60_000);
});
