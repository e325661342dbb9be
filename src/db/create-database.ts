import { userInfo } from 'node:os';
import pg from 'pg';
import { parseConnectionString } from './connection-string.js';
import { DatabaseStartError } from './start-error.js';

const MISSING_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';
const INSUFFICIENT_PRIVILEGE = '42501';

/** Runs `connect` (a first connection to `url`); when the database is missing, creates it and connects once more. */
export async function creatingMissingDatabase<T>(url: string, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (error) {
    if ((error as { code?: string }).code !== MISSING_DATABASE) throw error;
    await createDatabase(url);
    return connect();
  }
}

/**
 * Creates the database `url` names, connected to the server's `postgres` database as the same role
 * (on the first server of a multi-host URL that takes the statement: a standby refuses it). A role
 * that may not create databases gets the `createdb` command that does.
 */
async function createDatabase(url: string): Promise<void> {
  const connection = parseConnectionString(url);
  const name = connection.database;
  const role = connection.user ?? process.env.PGUSER ?? userInfo().username;
  let failure: unknown;
  for (const server of connection.servers) {
    const maintenance = new URL(connection.urlOf(server));
    maintenance.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 10_000 });
    try {
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      console.log(`created database "${name}" on ${server.host}:${server.port}`);
      return;
    } catch (error) {
      // Another process starting at the same time created it first.
      if ((error as { code?: string }).code === DUPLICATE_DATABASE) return;
      failure = error;
    } finally {
      await admin.end().catch(() => {});
    }
  }
  const code = (failure as { code?: string }).code;
  const [server] = connection.servers;
  const why =
    code === INSUFFICIENT_PRIVILEGE
      ? `role "${role}" may not create databases`
      : (failure as Error).message.split('\n')[0];
  throw new DatabaseStartError(
    `database "${name}" does not exist and could not be created (${why}); create it with: createdb -h ${server.host} -p ${server.port} -O ${role} ${name}`,
  );
}
