import { availableParallelism, cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase } from '../src/db/index.js';
import { startPgBouncer, type PgBouncer } from '../test/helpers/pgbouncer.js';
import { createPrivateCluster, createReplica, type PrivateCluster } from '../test/helpers/private-postgres.js';
import type { Case } from './case.js';
import { buildCases } from './cases.js';
import { onCleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { cpuMsOf, OwnProcesses, waitForQuiet } from './cpu.js';
import { loadDataset, size, type LoadReport } from './dataset.js';
import { issueKeys } from './keys.js';
import { runLoad, type LoadResult, type LoadSource } from './load.js';
import { median, revision, settingsGiven } from './report.js';
import { gatewayRuntime } from './peer-setup.js';
import { startScript, startServer, type ChildServer } from './servers.js';

/**
 * The replica case (BENCH_CASES=replica): a primary and one streaming replica of the bench's own
 * (initdb and pg_basebackup -R, fsync on, pg_stat_statements counting on both), PgBouncer 1.18 in
 * transaction mode in front of each, and the gateway started once per way of reaching them.
 */

/** How a gateway reaches the servers: its environment beside the pool size. */
interface Topology {
  name: string;
  env: (servers: Servers) => Record<string, string>;
}

interface Servers {
  primary: PrivateCluster;
  replica: PrivateCluster;
  bouncers: { primary: PgBouncer; replica: PgBouncer };
}

const DATABASE = 'bench';
const inBench = (url: string) => url.replace(/\/postgres$/, `/${DATABASE}`);

const topologies: Topology[] = [
  { name: 'reads on the primary', env: (s) => ({ DATABASE_URL: inBench(s.primary.url) }) },
  {
    name: 'reads on the replica',
    env: (s) => ({ DATABASE_URL: inBench(s.primary.url), DATABASE_REPLICA_URLS: inBench(s.replica.url) }),
  },
  {
    name: 'reads on the primary, read plans unnamed',
    env: (s) => ({ DATABASE_URL: inBench(s.primary.url), DATABASE_PREPARED_STATEMENTS: 'unnamed' }),
  },
  {
    name: 'PgBouncer, reads on the primary',
    env: (s) => ({ DATABASE_URL: s.bouncers.primary.url(DATABASE), DATABASE_DIRECT_URL: inBench(s.primary.url) }),
  },
  {
    name: 'PgBouncer, reads on the replica',
    env: (s) => ({
      DATABASE_URL: s.bouncers.primary.url(DATABASE),
      DATABASE_DIRECT_URL: inBench(s.primary.url),
      DATABASE_REPLICA_URLS: s.bouncers.replica.url(DATABASE),
    }),
  },
];

/** The cases measured on every topology: the nested read with 20 keys in turn, and one board. */
const readCases = ['g', 'b'];

export interface ReplicaRun {
  topology: string;
  case: string;
  load: LoadResult;
  /** Statements per request each server ran, from its pg_stat_statements (the gateway's polls left out). */
  statements: { primary: number; replica: number };
  /** CPU milliseconds per request: the gateway, PgBouncer, the primary's and the replica's backends. */
  cpu: { gateway: number; bouncer: number; primary: number; replica: number };
}

export interface ReplicaResult {
  date: Date;
  serverVersion: string;
  bouncerVersion: string;
  dataset: LoadReport;
  runs: ReplicaRun[];
  /** The mutation case on the topologies that read from the replica, with the replica's lag sampled meanwhile. */
  writes: (ReplicaRun & { lag: { ms: number[]; bytes: number[] } })[];
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

const countSql = `SELECT coalesce(sum(calls), 0)::int8 AS calls FROM pg_stat_statements s
  JOIN pg_database d ON d.oid = s.dbid
  WHERE d.datname = '${DATABASE}' AND s.query !~ 'pg_last_wal_replay_lsn|pg_current_wal_flush_lsn'`;

async function statementCounts(servers: Servers): Promise<{ primary: number; replica: number }> {
  const [[primary], [replica]] = await Promise.all(
    [servers.primary, servers.replica].map((cluster) => query<{ calls: string }>(cluster.url, countSql)),
  );
  return { primary: Number(primary.calls), replica: Number(replica.calls) };
}

/** CPU so far of the gateway, PgBouncer and each server's backends of the bench database. */
async function cpuSnapshot(
  gateway: ChildServer,
  servers: Servers,
  own: { primary: OwnProcesses; replica: OwnProcesses },
) {
  const [primary, replica] = await Promise.all([own.primary.backends(), own.replica.backends()]);
  return {
    gateway: cpuMsOf([gateway.pid]),
    bouncer: cpuMsOf([servers.bouncers.primary.pid, servers.bouncers.replica.pid]),
    primary: cpuMsOf(primary),
    replica: cpuMsOf(replica),
  };
}

type Snapshot = Awaited<ReturnType<typeof cpuSnapshot>>;

/** Milliseconds used between two snapshots; a process that appeared meanwhile counts from its start. */
function spent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += Math.max(0, ms - (before.get(pid) ?? 0));
  return total;
}

async function measure(
  config: BenchConfig,
  gateway: ChildServer,
  source: LoadSource,
  servers: Servers,
  own: { primary: OwnProcesses; replica: OwnProcesses },
  during?: () => () => Promise<unknown>,
): Promise<Omit<ReplicaRun, 'topology' | 'case'>> {
  const { bouncers } = servers;
  await waitForQuiet(
    new OwnProcesses(servers.primary.url, DATABASE, () => [gateway.pid, bouncers.primary.pid, bouncers.replica.pid]),
  );
  if (config.warmup > 0) await runLoad(gateway.url, source, config.connections, config.warmup);
  const before = await statementCounts(servers);
  const cpuBefore: Snapshot = await cpuSnapshot(gateway, servers, own);
  const stop = during?.();
  const load = await runLoad(gateway.url, source, config.connections, config.duration);
  await stop?.();
  // What the load generator left in flight is answered meanwhile.
  await sleep(1_000);
  const after = await statementCounts(servers);
  const cpuAfter: Snapshot = await cpuSnapshot(gateway, servers, own);
  const per = (value: number) => value / Math.max(1, load.sent);
  return {
    load,
    statements: { primary: per(after.primary - before.primary), replica: per(after.replica - before.replica) },
    cpu: {
      gateway: per(spent(cpuBefore.gateway, cpuAfter.gateway)),
      bouncer: per(spent(cpuBefore.bouncer, cpuAfter.bouncer)),
      primary: per(spent(cpuBefore.primary, cpuAfter.primary)),
      replica: per(spent(cpuBefore.replica, cpuAfter.replica)),
    },
  };
}

/** Samples the replica's lag every 100 ms as the primary sees it (pg_stat_replication) until stopped. */
function sampleLag(primary: PrivateCluster, into: { ms: number[]; bytes: number[] }): () => () => Promise<void> {
  return () => {
    let running = true;
    const sampling = (async () => {
      const client = new pg.Client({ connectionString: primary.url });
      await client.connect();
      while (running) {
        const { rows } = await client.query<{ bytes: string; ms: number | null }>(
          `SELECT pg_wal_lsn_diff(pg_current_wal_flush_lsn(), replay_lsn)::int8 AS bytes,
             extract(epoch FROM replay_lag) * 1000 AS ms FROM pg_stat_replication`,
        );
        into.bytes.push(Number(rows[0]?.bytes ?? 0));
        // replay_lag is null once the replica has replayed everything.
        into.ms.push(Number(rows[0]?.ms ?? 0));
        await sleep(100);
      }
      await client.end();
    })();
    return async () => {
      running = false;
      await sampling;
    };
  };
}

async function startServers(log: (message: string) => void): Promise<{ servers: Servers; dataset: LoadReport }> {
  const settings = { fsync: 'on', shared_preload_libraries: 'pg_stat_statements' };
  const primary = await createPrivateCluster(settings);
  onCleanup('remove the primary', () => primary.remove());
  await primary.start();
  await query(primary.url, 'CREATE EXTENSION pg_stat_statements');
  await (await openDatabase({ databaseUrl: inBench(primary.url), poolSize: 2 })).close(); // creates and migrates it
  const dataset = await loadDataset(inBench(primary.url));
  log(`replica: data set loaded in ${dataset.seconds.toFixed(1)} s; copying it to the replica`);
  const replica = await createReplica(primary, settings);
  onCleanup('remove the replica', () => replica.remove());
  await replica.start();
  const bouncers = {
    primary: await startPgBouncer({ host: '127.0.0.1', port: primary.port }, 10),
    replica: await startPgBouncer({ host: '127.0.0.1', port: replica.port }, 10),
  };
  onCleanup('stop the PgBouncers', () => Promise.all([bouncers.primary.stop(), bouncers.replica.stop()]).then());
  return { servers: { primary, replica, bouncers }, dataset };
}

/** Every topology in turn, each round; then the write load on the two that read from the replica. */
export async function measureReplicas(config: BenchConfig, log: (message: string) => void): Promise<ReplicaResult> {
  const { servers, dataset } = await startServers(log);
  const keys = await issueKeys(inBench(servers.primary.url), size.organizations);
  const own = {
    primary: new OwnProcesses(servers.primary.url, DATABASE, () => []),
    replica: new OwnProcesses(servers.replica.url, DATABASE, () => []),
  };
  const result: ReplicaResult = {
    date: new Date(),
    serverVersion: (await query<{ version: string }>(servers.primary.url, 'SELECT version()'))[0].version.split(
      ' on ',
    )[0],
    bouncerVersion: 'PgBouncer 1.18 (Debian), transaction mode, 10 server connections per server',
    dataset,
    runs: [],
    writes: [],
  };
  const source = (entry: Case): LoadSource => ({
    request: entry.gateway,
    constant: entry.constant,
    run: entry.run ?? 1,
  });
  const run = async (topology: Topology, work: (gateway: ChildServer, cases: Case[]) => Promise<void>) => {
    const gateway = await startServer({
      name: `gateway (${topology.name})`,
      command: ['sh', '-c', startScript()],
      env: {
        ...gatewayRuntime(config.gatewayNode, log).env,
        ...topology.env(servers),
        DATABASE_POOL_SIZE: String(config.poolSize),
        NODE_ENV: 'production',
      },
      readyPath: '/ready',
    });
    try {
      await work(gateway, await buildCases(gateway.url, keys));
    } finally {
      await gateway.stop();
    }
  };
  for (let round = 1; round <= config.rounds; round++) {
    for (const topology of topologies) {
      await run(topology, async (gateway, cases) => {
        for (const entry of cases.filter((c) => readCases.includes(c.id))) {
          log(`replica: round ${round}, ${topology.name}, case ${entry.id}`);
          const measured = await measure(config, gateway, source(entry), servers, own);
          result.runs.push({ topology: topology.name, case: entry.id, ...measured });
          log(`replica: ${measured.load.rps.toFixed(0)} req/s`);
        }
      });
    }
  }
  for (const topology of topologies.filter((t) => t.name.endsWith('on the replica'))) {
    await run(topology, async (gateway, cases) => {
      const writes = cases.find((c) => c.id === 'f')!;
      log(`replica: write load, ${topology.name}`);
      const lag = { ms: [] as number[], bytes: [] as number[] };
      const measured = await measure(config, gateway, source(writes), servers, own, sampleLag(servers.primary, lag));
      result.writes.push({ topology: topology.name, case: 'f', ...measured, lag });
    });
  }
  return result;
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function row(runs: Omit<ReplicaRun, 'topology' | 'case'>[]): string[] {
  const mid = (pick: (run: Omit<ReplicaRun, 'topology' | 'case'>) => number) => median(runs.map(pick));
  const rps = runs.map((run) => run.load.rps);
  const range = runs.length > 1 ? ` (${fixed(Math.min(...rps))}-${fixed(Math.max(...rps))})` : '';
  return [
    `${fixed(mid((run) => run.load.rps))}${range}`,
    fixed(mid((run) => run.load.p50)),
    fixed(mid((run) => run.load.p99)),
    String(runs.reduce((sum, run) => sum + run.load.non2xx + run.load.socketErrors, 0)),
    `${fixed(
      mid((run) => run.statements.primary),
      2,
    )} / ${fixed(
      mid((run) => run.statements.replica),
      2,
    )}`,
    [
      mid((run) => run.cpu.gateway),
      mid((run) => run.cpu.bouncer),
      mid((run) => run.cpu.primary),
      mid((run) => run.cpu.replica),
    ]
      .map((ms) => fixed(ms, 1))
      .join(' + '),
  ];
}

export function renderReplicas(config: BenchConfig, result: ReplicaResult): string {
  const header = [
    '| topology | case | req/s | p50 ms | p99 ms | errors | statements/req primary / replica | CPU ms/req gateway + PgBouncer + primary + replica |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  const lines = topologies.flatMap((topology) =>
    readCases.map((id) => {
      const runs = result.runs.filter((run) => run.topology === topology.name && run.case === id);
      return `| ${topology.name} | ${id} | ${row(runs).join(' | ')} |`;
    }),
  );
  const writes = result.writes.map((run) => `| ${run.topology} | f | ${row([run]).join(' | ')} |`);
  const lag = result.writes.map(
    (run) =>
      `- ${run.topology}: replica lag during the write load (pg_stat_replication.replay_lag, every 100 ms, ${run.lag.ms.length} samples) p50 ${fixed(percentile(run.lag.ms, 50), 1)} ms, p99 ${fixed(percentile(run.lag.ms, 99), 1)} ms, max ${fixed(Math.max(0, ...run.lag.ms), 1)} ms; WAL not yet replayed p50 ${fixed(percentile(run.lag.bytes, 50) / 1024)} kB, max ${fixed(Math.max(0, ...run.lag.bytes) / 1024)} kB`,
  );
  return [
    `- machine: ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), the gateway, PgBouncer, the primary and the replica on it (loopback)`,
    `- ${result.serverVersion}, two clusters of the bench's own (initdb; the replica by pg_basebackup -R, streaming), fsync on, default settings otherwise; ${result.bouncerVersion}`,
    `- date: ${result.date.toISOString().slice(0, 16).replace('T', ' ')} UTC; commit ${revision()}; load average at the end ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
    `- command: \`${settingsGiven()}npm run bench\` - ${config.rounds} ${config.rounds === 1 ? 'round' : 'rounds'} over the topologies, each case ${config.duration} s measured after ${config.warmup} s of warm-up, ${config.connections} connections, pools of ${config.poolSize}; the data set of the other cases, loaded in ${fixed(result.dataset.seconds, 1)} s`,
    '',
    ...header,
    ...lines,
    ...writes,
    '',
    ...lag,
  ].join('\n');
}
