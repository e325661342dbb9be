import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayPool, WAITERS_PER_CONNECTION } from '../src/db/pool.js';
import { isDatabaseUnavailable } from '../src/db/unavailable.js';
import { postgresServerUrl } from './helpers/database.js';

// The pool of the gateway on PostgreSQL, whatever the engine of the other suites: its own bound on
// a statement reaches a server on a Unix socket too, and a flood of requests waits no longer than
// the pool can serve.

const bounds = { connectTimeoutMs: 2_000, statementTimeoutMs: 300, lockTimeoutMs: 100 };
let socketUrl: string;
const pools: GatewayPool[] = [];

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: postgresServerUrl() });
  await admin.connect();
  const { rows } = await admin.query<{ dirs: string }>("SELECT current_setting('unix_socket_directories') AS dirs");
  await admin.end();
  const url = new URL(postgresServerUrl());
  socketUrl = `postgresql://${url.username}@/${url.pathname.slice(1)}?host=${rows[0].dirs.split(',')[0].trim()}&port=${url.port || 5432}`;
});
afterAll(() => Promise.all(pools.map((pool) => pool.end())));

/** A pool that sets no statement_timeout on its sessions, as behind PgBouncer in transaction mode: only the gateway's watch stops a statement. */
function unboundedPool(url: string, max = 1): GatewayPool {
  const pool = new GatewayPool({ url, max, bounds, sessionTimeouts: 'none' });
  pools.push(pool);
  return pool;
}

describe("the pool's watch over a statement", () => {
  it('cancels a statement past its time on a server reached through its Unix socket, as over TCP', async () => {
    for (const url of [socketUrl, postgresServerUrl()]) {
      const pool = unboundedPool(url);
      const started = performance.now();
      const failed = await pool.query('SELECT pg_sleep(10)').catch((error: unknown) => error as { code?: string });
      const took = performance.now() - started;
      // PostgreSQL's own answer to the cancel request; without it the connection is dropped a second later.
      expect(failed, url).toMatchObject({ code: '57014' });
      expect(took, url).toBeLessThan(1_000);
      expect((await pool.query('SELECT 1 AS one')).rows, url).toEqual([{ one: 1 }]);
    }
  });
});

describe("the pool's waiters", () => {
  it(`are at most ${WAITERS_PER_CONNECTION} per connection: one more is refused at once as the database unavailable (503)`, async () => {
    const pool = new GatewayPool({
      url: postgresServerUrl(),
      max: 2,
      bounds: { ...bounds, statementTimeoutMs: 5_000 },
      sessionTimeouts: 'startup',
    });
    pools.push(pool);
    const held = [pool.query('SELECT pg_sleep(0.5)'), pool.query('SELECT pg_sleep(0.5)')];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const waiting = Array.from({ length: 2 * WAITERS_PER_CONNECTION }, () => pool.query('SELECT 1'));
    expect(pool.waitingCount).toBe(2 * WAITERS_PER_CONNECTION);
    const started = performance.now();
    const refused = await pool.query('SELECT 1').catch((error: unknown) => error);
    expect(performance.now() - started).toBeLessThan(50);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect((refused as Error).message).toBe(
      `every connection is busy and ${2 * WAITERS_PER_CONNECTION} requests wait for one already`,
    );
    // Those waiting are served as connections come free.
    await Promise.all(held);
    expect((await Promise.all(waiting)).every((result) => result.rows.length === 1)).toBe(true);
  });
});
