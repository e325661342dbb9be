import { prepareTemplate } from '../src/db/pglite.js';
import { printRuntimeNotice } from '../src/runtime.js';
import { seedTemplates } from './helpers/database.js';
import { buildServer } from './helpers/processes.js';

/**
 * Says once which Node.js runs the suites when it is older than the supported one. Compiles the server that `npm start` runs, once before any file: the suites that start real
 * processes run in parallel, and a build per file would empty `dist/` under another file's server.
 * Meanwhile makes the embedded database's template when a new migration left none (npm install makes
 * it), then the demo data every file's database copies. Returns what removes the latter.
 */
export async function setup(): Promise<() => Promise<void>> {
  printRuntimeNotice();
  const [, removeSeeded] = await Promise.all([buildServer(), prepareTemplate().then(seedTemplates)]);
  return removeSeeded;
}
