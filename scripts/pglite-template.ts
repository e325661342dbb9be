/**
 * `npm run pglite:template` (npm install runs it): makes the embedded database's template for the
 * current migrations, so that the first `npm start` on a new data directory loads it instead of
 * running initdb and the migrations. It never fails an install: without a template a new database is
 * made as before, and makes the template then.
 */
import { commandLine } from '../src/cli.js';
import { prepareTemplate } from '../src/db/pglite.js';

commandLine(`
usage: npm run pglite:template

Makes the embedded database's template (a migrated, empty PGlite database) in
node_modules/.cache/whiteboard-gateway/ when the current migrations have none. npm install runs it.
`);

try {
  await prepareTemplate();
} catch (error) {
  console.warn(`the embedded database's template was not made (${(error as Error).message}); the first start makes it`);
}
