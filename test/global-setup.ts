import { buildServer } from './helpers/processes.js';

/**
 * Compiles the server that `npm start` runs, once before any file: the suites that start real
 * processes run in parallel, and a build per file would empty `dist/` under another file's server.
 */
export const setup = buildServer;
