// Run by createDataDirectory (./pglite.ts) as a process of its own: creates and migrates the embedded
// database at argv[2], and keeps it as the template in the directory argv[3].
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { applyMigrations } from './migrate.js';
import { startPglite } from './pglite.js';
import { saveTemplate } from './pglite-template.js';

const [location, templates] = process.argv.slice(2);
const pglite = await startPglite(location);
try {
  await applyMigrations(new PrismaPGlite(pglite));
  // A cache that cannot be written only costs the next new database this time again.
  await saveTemplate(pglite, templates).catch(() => {});
} finally {
  await pglite.close();
}
// Something left behind (PGlite's or the schema engine's) would keep the process alive about 10 s more.
process.exit(0);
