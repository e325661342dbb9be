// npm run db:migrate: applies pending migrations to the configured database (DATABASE_URL, or the embedded one under DATA_DIR).
import { loadConfig } from '../src/config.js';
import { openPglite, openPostgres } from '../src/db/engine.js';
import { applyMigrations } from '../src/db/migrate.js';

try {
  const config = loadConfig();
  const engine = config.databaseUrl ? await openPostgres(config.databaseUrl, 1) : await openPglite(config.dataDir);
  try {
    const applied = await applyMigrations(engine.adapter);
    console.log(applied.length ? `applied ${applied.join(', ')} to ${engine.location}` : `${engine.location} is up to date`);
  } finally {
    await engine.close();
  }
} catch (error) {
  console.error(`db:migrate failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
}
// The WebAssembly schema engine leaves a timer behind that would hold the process for ~10 s.
process.exit();
