// Run by createDataDirectory (./pglite.ts) as a process of its own: creates and migrates the embedded database at argv[2].
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations } from './migrate.js';
import { startPglite } from './pglite.js';

const pglite = await startPglite(process.argv[2]);
try {
  await applyMigrations(new PrismaPGlite(pglite));
} finally {
  await pglite.close();
}
// Something left behind (PGlite's or the schema engine's) would keep the process alive about 10 s more.
process.exit(0);
