/**
 * Preloaded into the gateway and the peer by the bench (`node --import <this file>`), so that neither
 * needs bench hooks. Plain JavaScript: the gateway runs compiled (`npm run build`) and the peer on
 * another Node, and a TypeScript loader would add its own memory to the figures. It counts the SQL
 * statements the process sends to PostgreSQL at the driver: every statement (Prisma's, PostGraphile's,
 * BEGIN/COMMIT, the API-key lookup) passes through `pg.Client#query`, one call per statement. The
 * bench asks for the count over IPC.
 */
import { createRequire } from 'node:module';

// The server's own `pg`, resolved from its working directory (the peer has its own node_modules):
// wrapping another copy's Client would count nothing.
const pg = createRequire(`${process.cwd()}/`)('pg');

let statements = 0;

const prototype = pg.Client.prototype;
const query = prototype.query;
prototype.query = function countedQuery(...args) {
  statements++;
  return query.apply(this, args);
};

process.on('message', (message) => {
  if (message === 'statements') process.send?.({ statements });
});

// The bench died without stopping us (SIGKILL): shut down the way an operator would.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
