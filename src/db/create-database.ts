import { userInfo } from 'node:os';
import pg from 'pg';
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
 * Creates the database `url` names, connected to the server's `postgres` database as the same role.
 * A role that may not create databases gets the `createdb` command that does.
 */
async function createDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const role = decodeURIComponent(target.username) || process.env.PGUSER || userInfo().username;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: maintenance.toString() });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    console.log(`created database "${name}" on ${target.hostname}:${target.port || 5432}`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // Another process starting at the same time created it first.
    if (code === DUPLICATE_DATABASE) return;
    const server = `-h ${target.hostname} -p ${target.port || 5432}`;
    const why =
      code === INSUFFICIENT_PRIVILEGE
        ? `role "${role}" may not create databases`
        : (error as Error).message.split('\n')[0];
    throw new DatabaseStartError(
      `database "${name}" does not exist and could not be created (${why}); create it with: createdb ${server} -O ${role} ${name}`,
    );
  } finally {
    await admin.end().catch(() => {});
  }
}
