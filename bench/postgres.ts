import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { onCleanup } from './cleanup.js';
import { createPrivateCluster } from '../test/helpers/private-postgres.js';

const run = promisify(execFile);

/**
 * The PostgreSQL server a bench run measures on: by default a cluster of the bench's own, which loads
 * `pg_stat_statements` (a shared server must not be restarted to load it) and can be pinned to a core.
 */
export interface BenchPostgres {
  adminUrl: string;
  /** Whether `pg_stat_statements` counts on that server, so that PostgreSQL's time per request can be read. */
  statementStats: boolean;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Restricts a process and every thread of it to one CPU (its children inherit the affinity). */
export async function pinToCpu(pid: number, cpu: number): Promise<void> {
  await run('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)]);
}

/** The postmaster and the processes it has started so far; the backends it forks later inherit its affinity. */
async function pinServer(dataDirectory: string, cpu: number): Promise<void> {
  const postmaster = Number((await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const { stdout } = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
  for (const pid of [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)]) await pinToCpu(pid, cpu);
}

/**
 * A cluster of the bench's own (initdb in a temporary directory, fsync on as in production,
 * `pg_stat_statements` preloaded), or the server of `adminUrl` when one is given, whose
 * `pg_stat_statements` is used when it is loaded there. With `cpu`, the cluster runs on that CPU alone.
 */
export async function benchPostgres(adminUrl: string | undefined, cpu?: number): Promise<BenchPostgres> {
  if (adminUrl) {
    const statementStats = await withClient(adminUrl, (client) =>
      client.query('SELECT 1 FROM pg_stat_statements LIMIT 1').then(
        () => true,
        () => false,
      ),
    );
    return { adminUrl, statementStats };
  }
  const cluster = await createPrivateCluster({ fsync: 'on', shared_preload_libraries: 'pg_stat_statements' });
  onCleanup('remove the bench cluster', () => cluster.remove());
  await cluster.start();
  if (cpu !== undefined) await pinServer(cluster.dataDirectory, cpu);
  await withClient(cluster.url, (client) => client.query('CREATE EXTENSION pg_stat_statements'));
  return { adminUrl: cluster.url, statementStats: true };
}

/**
 * PostgreSQL's execution time spent on one database: `reset()` zeroes its statements' statistics,
 * `spentMs()` sums `total_exec_time` over every top-level statement of the database since. A
 * statement's time holds that of the triggers and functions it ran; where `pg_stat_statements.track`
 * is `all`, their own statements are counted too, nested, and left out here so that none counts twice.
 */
export function executionTime(server: BenchPostgres, database: string) {
  const reset = `SELECT pg_stat_statements_reset(0, oid, 0) FROM pg_database WHERE datname = $1`;
  const spent = `SELECT coalesce(sum(s.total_exec_time), 0)::float8 AS ms FROM pg_stat_statements s
    JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 AND s.toplevel`;
  return {
    reset: () => withClient(server.adminUrl, (client) => client.query(reset, [database])).then(() => undefined),
    spentMs: () =>
      withClient(server.adminUrl, (client) => client.query<{ ms: number }>(spent, [database])).then((result) =>
        Number(result.rows[0].ms),
      ),
  };
}
