/**
 * Preloaded into the gateway process by the bench (`node --import ./bench/gateway-probe.mjs`), so that
 * src/ needs no bench hooks. Plain JavaScript: the gateway runs compiled (`npm run build`), and a
 * TypeScript loader would add its own memory to the figures. It counts the SQL statements the process sends to PostgreSQL at the
 * driver: every statement, Prisma's or anyone's (BEGIN/COMMIT and the API-key lookup included),
 * passes through `pg.Client#query`, one call per statement. The bench asks for the count over IPC.
 */
import pg from 'pg';

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
