import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PreparedStatements } from '../config.js';

/** Distinct statements prepared on each PostgreSQL connection; others are planned at every run. */
const MAX_PREPARED_STATEMENTS = 500;

/**
 * The name a read plan's statement is prepared under, the same on every connection, or undefined for
 * an unnamed statement (planned at every run). Read plans repeat a few statement texts with other
 * values: prepared once per connection, PostgreSQL plans each once (planning was as long as running
 * for a one-board read). Bounded, so a stream of distinct operations cannot grow every connection
 * without end.
 */
export function statementNames(mode: 'named' | 'unnamed'): (sql: string) => string | undefined {
  if (mode === 'unnamed') return () => undefined;
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (!name && names.size < MAX_PREPARED_STATEMENTS) names.set(sql, (name = `read_plan_${names.size}`));
    return name;
  };
}

/**
 * Whether the pooler in front of `pool` keeps each client's named statements apart from the server
 * connection it lends (PgBouncer 1.21 and later with `max_prepared_statements` above 0 prepares them
 * under names of its own, `PGBOUNCER_<n>`). A pooler that passes the name through as it is (PgBouncer
 * before 1.21) would send a statement prepared on one server connection to another, which has not
 * got it. Checked inside one transaction, so both statements meet the same server connection.
 */
async function poolerTracksStatements(pool: pg.Pool): Promise<boolean> {
  const name = `gateway_probe_${randomUUID().replace(/-/g, '')}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query({ name, text: 'SELECT 1' });
    const { rows } = await client.query('SELECT 1 FROM pg_prepared_statements WHERE name = $1', [name]);
    if (rows.length) await client.query(`DEALLOCATE ${name}`);
    await client.query('COMMIT');
    return rows.length === 0;
  } finally {
    // The client's own record of the probe's name goes with it: it is never lent out again.
    client.release(true);
  }
}

/**
 * `auto`: named on PostgreSQL itself; behind a pooler (DATABASE_DIRECT_URL set), named only when the
 * pooler tracks them.
 */
export async function preparedMode(
  setting: PreparedStatements,
  pool: pg.Pool,
  pooled: boolean,
): Promise<'named' | 'unnamed'> {
  if (setting !== 'auto') return setting;
  if (!pooled) return 'named';
  return (await poolerTracksStatements(pool)) ? 'named' : 'unnamed';
}
