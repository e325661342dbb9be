import { commandLine } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import { applyMigrations } from '../src/db/migrate.js';
import { openEngine } from '../src/db/open-engine.js';

commandLine(`
usage: npm run db:migrate

Applies the pending migrations of prisma/migrations/ to the configured database: DATABASE_URL (created
when missing and the role may), else the embedded one under DATA_DIR (./.data), through the running
server when one holds it. npm start does the same at every start.
`);

try {
  const engine = await openEngine({ ...loadConfig(), poolSize: 1 }, 'tool');
  try {
    const applied = await applyMigrations(engine.adapter);
    console.log(
      applied.length ? `applied ${applied.join(', ')} to ${engine.location}` : `${engine.location} is up to date`,
    );
  } finally {
    await engine.close();
  }
} catch (error) {
  console.error(`db:migrate failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
}
// The WebAssembly schema engine leaves a timer behind that would hold the process for ~10 s.
process.exit();
