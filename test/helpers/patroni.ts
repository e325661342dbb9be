import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort, runProgram, serverDirectory } from './private-postgres.js';

// The high-availability layout most PostgreSQL deployments run, started by a test from Debian's
// packages: etcd (the consensus store), Patroni managing two PostgreSQL nodes with synchronous
// replication, and HAProxy routing by Patroni's REST health checks - one port to the leader, one to
// the replicas.

const asRoot = process.getuid?.() === 0;
const run = promisify(execFile);

/** PostgreSQL's server programs, as Patroni needs their directory. */
function binDirectory(): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .find((name) => existsSync(join(root, name, 'bin', 'postgres')));
  if (!version) throw new Error(`no PostgreSQL server programs under ${root}`);
  return join(root, version, 'bin');
}

/**
 * A long-running server program, as the postgres user under root (PostgreSQL refuses root), its
 * output kept. It runs in `cwd`, a directory of its own: Patroni, as the postgres user, fails to
 * start PostgreSQL from a working directory it may not enter (CI's clone is in a private temporary
 * directory of root's), and only says "bootstrap in progress" until a test gives up.
 */
function daemon(
  program: string,
  args: string[],
  { log, cwd, asPostgres = true }: { log: string[]; cwd: string; asPostgres?: boolean },
): ChildProcess {
  const [file, argv] = asRoot && asPostgres ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  const child = spawn(file, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return child;
}

async function stopDaemon(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const late = sleep(15_000).then(() => child.kill('SIGKILL'));
  await Promise.race([exited, late]);
  await exited;
}

/** What Patroni's REST API says of its node: `GET /patroni`. */
interface NodeState {
  role: 'master' | 'primary' | 'replica' | string;
  state: string;
}

export interface PatroniNode {
  name: string;
  /** PostgreSQL's port. */
  port: number;
  /** Patroni's REST API port. */
  restPort: number;
  dataDirectory: string;
  state(): Promise<NodeState | undefined>;
}

export interface PatroniCluster {
  nodes: PatroniNode[];
  /** HAProxy's port to the leader, and to the replicas. */
  primaryPort: number;
  replicaPort: number;
  /** The URL of `database` through HAProxy's leader port, or its replica port. */
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** The node that leads now (waiting up to `timeoutMs` for one). */
  leader(timeoutMs?: number): Promise<PatroniNode>;
  /** Waits until one node leads and the other streams as its (synchronous) standby. */
  healthy(timeoutMs?: number): Promise<void>;
  /** Stops `node`'s PostgreSQL as a crash does (`pg_ctl -m immediate`); its Patroni lives on. */
  crashPostgres(node: PatroniNode): Promise<void>;
  /** The log lines of etcd, HAProxy and each Patroni, for a failure's message. */
  logs(): string;
  remove(): Promise<void>;
}

const yaml = (value: unknown, indent = ''): string => {
  if (Array.isArray(value))
    return value.map((item) => `\n${indent}- ${yaml(item, `${indent}  `).trimStart()}`).join('');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(
        ([key, item]) =>
          `\n${indent}${key}:${typeof item === 'object' && item !== null ? yaml(item, `${indent}  `) : ` ${yaml(item)}`}`,
      )
      .join('');
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
};

/**
 * Not the traceback Patroni's REST API logs for each client that hung up before its answer (a state
 * poll past its 1 s timeout): a minute of those once filled the log a failure shows.
 */
const telling = (line: string) =>
  !/^\s|Traceback \(most recent call last\)|Exception happened during processing of request|BrokenPipeError/.test(line);

/** A log's first and last lines: how its program started, and what it did last. */
const ends = (lines: string[]) =>
  lines.length <= 80 ? lines : [...lines.slice(0, 40), `... ${lines.length - 80} lines ...`, ...lines.slice(-40)];

async function accepting(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

/**
 * A Patroni cluster of two PostgreSQL nodes (`synchronous_mode` unless told otherwise) over one etcd,
 * behind HAProxy, in a temporary directory on free ports; `remove` stops everything and deletes it.
 * Failover settings a test can wait for: a loop every second, and a leader whose PostgreSQL crashes
 * is replaced at once (`master_start_timeout: 0`) by its (synchronous) standby.
 */
export async function startPatroniCluster({ synchronous = true } = {}): Promise<PatroniCluster> {
  const directory = await serverDirectory('gateway-patroni-');
  const logs: Record<string, string[]> = { etcd: [], haproxy: [] };
  const children: ChildProcess[] = [];
  const scope = `gateway-${randomUUID().slice(0, 8)}`;
  const [etcdClient, etcdPeer, primaryPort, replicaPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const cluster: PatroniCluster = {
    nodes: [],
    primaryPort,
    replicaPort,
    primaryUrl: (database) => `postgresql://postgres@127.0.0.1:${primaryPort}/${database}`,
    replicaUrl: (database) => `postgresql://postgres@127.0.0.1:${replicaPort}/${database}`,
    async leader(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const node of cluster.nodes) {
          const state = await node.state();
          if ((state?.role === 'master' || state?.role === 'primary') && state.state === 'running') return node;
        }
        if (Date.now() > deadline) throw new Error(`no Patroni leader within ${timeoutMs} ms\n${cluster.logs()}`);
        await sleep(200);
      }
    },
    async healthy(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const response = await fetch(`http://127.0.0.1:${cluster.nodes[0].restPort}/cluster`).catch(() => undefined);
        const members: { role: string; state: string }[] = response?.ok ? (await response.json()).members : [];
        const leads = members.some((member) => member.role === 'leader' && member.state === 'running');
        const standby = synchronous ? 'sync_standby' : 'replica';
        const follows = members.some((member) => member.role === standby && /running|streaming/.test(member.state));
        if (leads && follows && (await accepting(`http://127.0.0.1:${cluster.nodes[0].restPort}/health`))) return;
        if (Date.now() > deadline)
          throw new Error(
            `the Patroni cluster is not healthy within ${timeoutMs} ms: ${JSON.stringify(members)}\n${cluster.logs()}`,
          );
        await sleep(250);
      }
    },
    async crashPostgres(node) {
      await runProgram('pg_ctl', ['-D', node.dataDirectory, '-m', 'immediate', '-w', 'stop']);
    },
    logs: () =>
      Object.entries(logs)
        .map(([name, lines]) => `--- ${name}\n${ends(lines.filter(telling)).join('\n')}`)
        .join('\n'),
    async remove() {
      // Patroni first: it stops its PostgreSQL; etcd last, which Patroni needs to stop cleanly.
      await Promise.all(children.filter((child) => child.spawnargs.includes('patroni')).map(stopDaemon));
      await Promise.all(children.map(stopDaemon));
      await rm(directory, { recursive: true, force: true });
    },
  };
  try {
    children.push(
      daemon(
        'etcd',
        [
          '--name',
          'etcd0',
          '--data-dir',
          join(directory, 'etcd'),
          '--listen-client-urls',
          `http://127.0.0.1:${etcdClient}`,
          '--advertise-client-urls',
          `http://127.0.0.1:${etcdClient}`,
          '--listen-peer-urls',
          `http://127.0.0.1:${etcdPeer}`,
          '--initial-advertise-peer-urls',
          `http://127.0.0.1:${etcdPeer}`,
          '--initial-cluster',
          `etcd0=http://127.0.0.1:${etcdPeer}`,
        ],
        { log: logs.etcd, cwd: directory, asPostgres: false },
      ),
    );
    for (
      const deadline = Date.now() + 15_000;
      !(await accepting(`http://127.0.0.1:${etcdClient}/health`));
      await sleep(100)
    )
      if (Date.now() > deadline) throw new Error(`etcd does not answer\n${cluster.logs()}`);
    const bin = binDirectory();
    for (const index of [0, 1]) {
      const name = `node${index}`;
      const [port, restPort] = await Promise.all([freePort(), freePort()]);
      const home = join(directory, name);
      await mkdir(home);
      const dataDirectory = join(home, 'data');
      const config = {
        scope,
        namespace: '/gateway/',
        name,
        restapi: { listen: `127.0.0.1:${restPort}`, connect_address: `127.0.0.1:${restPort}` },
        etcd3: { hosts: `127.0.0.1:${etcdClient}` },
        bootstrap: {
          dcs: {
            ttl: 20,
            loop_wait: 1,
            retry_timeout: 5,
            master_start_timeout: 0,
            synchronous_mode: synchronous,
            maximum_lag_on_failover: 1048576,
            postgresql: {
              use_pg_rewind: true,
              parameters: {
                wal_keep_size: '128MB',
                max_wal_senders: 10,
                max_replication_slots: 10,
                hot_standby: 'on',
                wal_log_hints: 'on',
              },
            },
          },
          // Without a sync of every file to disk, as the suites' other servers: on a disk another
          // suite keeps busy, initdb's sync alone has outlasted a minute.
          initdb: [{ encoding: 'UTF8' }, { 'auth-local': 'trust' }, { 'auth-host': 'trust' }, 'no-sync'],
          pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
        },
        postgresql: {
          listen: `127.0.0.1:${port}`,
          connect_address: `127.0.0.1:${port}`,
          data_dir: dataDirectory,
          bin_dir: bin,
          pgpass: join(home, 'pgpass'),
          basebackup: ['no-sync', { checkpoint: 'fast' }],
          authentication: {
            superuser: { username: 'postgres', password: 'postgres' },
            replication: { username: 'postgres', password: 'postgres' },
            rewind: { username: 'postgres', password: 'postgres' },
          },
          parameters: { unix_socket_directories: home, fsync: 'off' },
        },
        tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
      };
      const file = join(home, 'patroni.yml');
      await writeFile(file, `${yaml(config).trimStart()}\n`);
      if (asRoot) await run('chown', ['-R', 'postgres:', home]);
      logs[name] = [];
      children.push(daemon('patroni', [file], { log: logs[name], cwd: home }));
      cluster.nodes.push({
        name,
        port,
        restPort,
        dataDirectory,
        async state() {
          const response = await fetch(`http://127.0.0.1:${restPort}/patroni`, {
            signal: AbortSignal.timeout(1_000),
          }).catch(() => undefined);
          return response ? ((await response.json()) as NodeState) : undefined;
        },
      });
      // The first node bootstraps the cluster; the second is cloned from it once it leads.
      if (index === 0) await cluster.leader(60_000);
    }
    const route = (name: string, port: number, check: string) => [
      `listen ${name}`,
      `  bind 127.0.0.1:${port}`,
      `  option httpchk OPTIONS ${check}`,
      '  http-check expect status 200',
      '  default-server inter 250ms fall 2 rise 1 on-marked-down shutdown-sessions',
      ...cluster.nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} check port ${node.restPort}`),
    ];
    const haproxyConfig = [
      'global',
      '  maxconn 1000',
      'defaults',
      '  mode tcp',
      '  timeout connect 2s',
      '  timeout client 30m',
      '  timeout server 30m',
      '  timeout check 1s',
      ...route('primary', primaryPort, '/primary'),
      ...route('replicas', replicaPort, '/replica'),
    ].join('\n');
    await writeFile(join(directory, 'haproxy.cfg'), `${haproxyConfig}\n`);
    children.push(
      daemon('/usr/sbin/haproxy', ['-db', '-f', join(directory, 'haproxy.cfg')], {
        log: logs.haproxy,
        cwd: directory,
        asPostgres: false,
      }),
    );
    await cluster.healthy();
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  return cluster;
}
