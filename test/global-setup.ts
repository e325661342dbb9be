import { prepareTemplate } from '../src/db/pglite.js';
import { buildServer } from './helpers/processes.js';

/**
 * Compiles the server that `npm start` runs, once before any file: the suites that start real
 * processes run in parallel, and a build per file would empty `dist/` under another file's server.
 * Then makes the embedded database's template when a new migration left none (npm install makes it).
 */
export async function setup(): Promise<void> {
  await buildServer();
  await prepareTemplate();
}
