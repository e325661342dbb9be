import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/index.js';

/** Runs a command-line tool's work on the configured database: its first error line on stderr and exit code 1, the database closed either way. */
export async function runOnDatabase(name: string, run: (database: Database) => Promise<void>): Promise<void> {
  let database: Database | undefined;
  try {
    database = await openDatabase(loadConfig());
    await run(database);
  } catch (error) {
    console.error(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
    process.exitCode = 1;
  } finally {
    await database?.close().catch(() => {});
  }
}
