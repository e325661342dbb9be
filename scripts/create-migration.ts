import { commandLine } from '../src/cli.js';
import { openPglite } from '../src/db/engine.js';
import { createMigration } from '../src/db/migrate.js';

const { positionals } = commandLine(
  `
usage: npm run db:migration -- <name>

Writes prisma/migrations/<timestamp>_<name>/migration.sql from what prisma/schema.prisma adds to the
migrations already in that folder. Needs no database server: an in-memory embedded database serves as
the shadow database.
`,
  { allowPositionals: true },
);
const name = positionals.join(' ');
// An in-memory PGlite serves as the shadow database, so no server is needed to write a migration.
const engine = await openPglite(undefined);
try {
  const path = await createMigration(engine.adapter, name);
  console.log(path ? `wrote ${path}` : 'schema.prisma has no changes that the migrations lack');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await engine.close();
}
// The WebAssembly schema engine leaves a timer behind that would hold the process for ~10 s.
process.exit();
