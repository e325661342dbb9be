import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/index.js';
import { seedDemo } from '../src/db/seed/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';
import { subscribeSse } from './helpers/live.js';
import { createPrivateCluster, createReplica, type PrivateCluster } from './helpers/private-postgres.js';
import { startGateway, type GatewayProcess } from './helpers/processes.js';
import { rest } from './helpers/rest.js';

// A primary and a streaming replica of this file's own (initdb, then pg_basebackup -R), both
// counting statements in pg_stat_statements, and three gateway processes reading from the replica
// that differ only in how far it may lag: A by default (1 s), B 60 s, C 300 ms.

const settings = { shared_preload_libraries: 'pg_stat_statements' };

let primary: PrivateCluster;
let replica: PrivateCluster;
let database: Database;
let keys: DemoKeys;
let a: GatewayProcess;
let b: GatewayProcess;
let c: GatewayProcess;

const inDatabase = (cluster: PrivateCluster, name: string) => cluster.url.replace(/\/postgres$/, `/${name}`);

function startInstance(maxLagMs?: number): Promise<GatewayProcess> {
  const env = {
    DATABASE_URL: inDatabase(primary, 'gateway'),
    DATABASE_REPLICA_URLS: inDatabase(replica, 'gateway'),
    ...(maxLagMs ? { DATABASE_REPLICA_MAX_LAG_MS: String(maxLagMs) } : {}),
    DATABASE_POOL_SIZE: '3',
    METRICS_TOKEN: 'replicas',
  };
  return startGateway(env, keys);
}

/** A replica's gauge as an instance's /metrics shows it. */
async function gauge(instance: GatewayProcess, name: string): Promise<number> {
  const response = await fetch(`${instance.url}/metrics`, { headers: { authorization: 'Bearer replicas' } });
  const line = new RegExp(`^${name}\\{replica="127\\.0\\.0\\.1:${replica.port}/gateway"\\} (\\S+)$`, 'm');
  return Number(line.exec(await response.text())?.[1]);
}

/** Runs one statement on a server's `postgres` database. */
async function onServer<Row extends pg.QueryResultRow>(cluster: PrivateCluster, sql: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Statements of the gateway's database that a server ran, among those whose text matches `pattern`. */
async function calls(cluster: PrivateCluster, pattern: string): Promise<number> {
  const [row] = await onServer<{ calls: number }>(
    cluster,
    `SELECT coalesce(sum(calls), 0)::int AS calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = 'gateway' AND s.query ~ $1`,
    [pattern],
  );
  return row.calls;
}

/** The gateway's reads and writes of boards, as a server counts them (the gateway's polls are not). */
const boardStatements = '"?whiteboard"?';

beforeAll(async () => {
  primary = await createPrivateCluster(settings);
  await primary.start();
  await onServer(primary, 'CREATE EXTENSION pg_stat_statements');
  database = await openDatabase({ databaseUrl: inDatabase(primary, 'gateway'), poolSize: 2 });
  keys = await seedDemo(database.prisma);
  replica = await createReplica(primary, settings);
  await replica.start();
  [a, b, c] = await Promise.all([startInstance(), startInstance(60_000), startInstance(300)]);
});

afterAll(async () => {
  expect(await Promise.all([a?.stop(), b?.stop(), c?.stop()])).toEqual([0, 0, 0]);
  await database?.close();
  await replica?.remove();
  await primary?.remove();
});

const boardName = 'query($id: Int!) { whiteboard(rowId: $id) { name } }';
const rename =
  'mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { name } } }';
const nested =
  '{ whiteboards(first: 20) { edges { node { name dataStreams { edges { node { slides { totalCount } } } } } } } }';
const board = 1;

/** Board statements the replica ran for one nested read through `instance`: 1 when it answered it. */
async function readsOnReplica(instance: GatewayProcess): Promise<number> {
  const before = await calls(replica, boardStatements);
  await instance.graphql(nested);
  return (await calls(replica, boardStatements)) - before;
}
const nameOn = async (instance: GatewayProcess, key: string) =>
  (await instance.graphql(boardName, { id: board }, key)).data?.whiteboard.name;

describe('the settings of replicas and poolers', () => {
  it('take PostgreSQL URLs beside DATABASE_URL only, and a lag limit of at least three polls', () => {
    const primaryUrl = 'postgresql://app@db-1/gateway';
    expect(loadConfig({})).toMatchObject({ replicaUrls: [], replicaMaxLagMs: 1000, preparedStatements: 'auto' });
    expect(
      loadConfig({
        DATABASE_URL: primaryUrl,
        DATABASE_REPLICA_URLS: ' postgresql://app@db-2/gateway,postgres://db-3/gateway ',
      }).replicaUrls,
    ).toEqual(['postgresql://app@db-2/gateway', 'postgres://db-3/gateway']);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: primaryUrl })).toThrow(
      'DATABASE_REPLICA_URLS is set but DATABASE_URL is not',
    );
    expect(() => loadConfig({ DATABASE_DIRECT_URL: primaryUrl })).toThrow(
      'DATABASE_DIRECT_URL is set but DATABASE_URL is not',
    );
    expect(() => loadConfig({ DATABASE_URL: primaryUrl, DATABASE_REPLICA_URLS: 'db-2:5432' })).toThrow(
      'DATABASE_REPLICA_URLS must be a postgresql:// URL, got "db-2:5432"',
    );
    expect(() => loadConfig({ DATABASE_URL: primaryUrl, DATABASE_REPLICA_MAX_LAG_MS: '100' })).toThrow(
      'DATABASE_REPLICA_MAX_LAG_MS must be an integer of at least 300',
    );
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toThrow(
      'DATABASE_PREPARED_STATEMENTS must be one of auto, named, unnamed',
    );
  });
});

describe('read replicas', () => {
  it('reads from the replica, planned statements and resolvers alike, and writes on the primary only', async () => {
    expect(a.server.lines.out.join('\n')).toMatch(/reads also on 127\.0\.0\.1:\d+\/gateway \(at most 1000 ms behind\)/);
    // The first read records the floor of the fences, which the replica replays within a poll or two.
    await expect.poll(() => readsOnReplica(a), { timeout: 3_000 }).toBe(1);
    const [replicaBefore, primaryBefore] = [
      await calls(replica, boardStatements),
      await calls(primary, boardStatements),
    ];
    const usersBefore = await calls(replica, '"user"');
    for (let i = 0; i < 5; i++) expect((await a.graphql(nested)).errors).toBeUndefined();
    // `me` runs through its resolver and Prisma, not a read plan.
    expect((await a.graphql('{ me { email } }')).data!.me.email).toMatch(/@/);
    expect(await calls(replica, boardStatements)).toBe(replicaBefore + 5);
    expect(await calls(replica, '"user"')).toBeGreaterThan(usersBefore);
    expect(await calls(primary, boardStatements)).toBe(primaryBefore);

    expect((await a.graphql(rename, { id: board, name: 'Written on the primary' })).errors).toBeUndefined();
    expect(await calls(replica, boardStatements)).toBe(replicaBefore + 5);
    expect(await calls(primary, boardStatements)).toBeGreaterThan(primaryBefore);
    expect(await gauge(a, 'db_replica_usable')).toBe(1);
    expect(await gauge(a, 'db_replica_lag_seconds')).toBeLessThan(1);
  });

  it('lets a caller read its own write through any instance while the replica stands still; others read as the lag setting says', async () => {
    await onServer(replica, 'SELECT pg_wal_replay_pause()');
    try {
      expect((await a.graphql(rename, { id: board, name: 'Fresh' })).errors).toBeUndefined();
      // The writer, through B and C, at once: from the primary, since the replica has not replayed the write.
      expect(await nameOn(b, keys.owner)).toBe('Fresh');
      expect(await nameOn(c, keys.owner)).toBe('Fresh');
      // Another user through B, which accepts 60 s of lag: from the paused replica.
      const replicaCalls = await calls(replica, boardStatements);
      expect(await nameOn(b, keys.member)).toBe('Written on the primary');
      expect(await calls(replica, boardStatements)).toBe(replicaCalls + 1);
      // Through C, whose 300 ms have passed: the replica is left out, the primary answers.
      await sleep(500);
      expect(await nameOn(c, keys.member)).toBe('Fresh');
      expect(await calls(replica, boardStatements)).toBe(replicaCalls + 1);
    } finally {
      await onServer(replica, 'SELECT pg_wal_replay_resume()');
    }
    // Caught up again: B's replica shows the write.
    await expect.poll(() => nameOn(b, keys.member), { timeout: 3_000 }).toBe('Fresh');
  });

  it('costs no failed request when the replica stops under load, keeps subscriptions delivering, and takes it back once it answers', async () => {
    const events = await subscribeSse(
      b.url,
      keys.viewer,
      `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on NodeChangedEvent { node { ... on Whiteboard { name } } } } }`,
      { id: board },
    );
    const failures: string[] = [];
    let answered = 0;
    const until = Date.now() + 2_500;
    const reader = async (key: string) => {
      while (Date.now() < until) {
        const graphql = await b.graphql(nested, {}, key);
        const listed = await rest({ url: b.url, keys }, 'GET', '/api/whiteboard/v1/', { key });
        if (graphql.status !== 200 || graphql.errors) failures.push(JSON.stringify(graphql));
        if (listed.status !== 200) failures.push(JSON.stringify(listed.body));
        answered += 2;
      }
    };
    const load = Promise.all([keys.owner, keys.admin, keys.member, keys.viewer].map(reader));
    await sleep(700);
    await replica.stop();
    await expect.poll(() => gauge(b, 'db_replica_usable'), { timeout: 1_000 }).toBe(0);
    expect((await a.graphql(rename, { id: board, name: 'Renamed while the replica is down' })).errors).toBeUndefined();
    expect((await events.next(1_000)).data.whiteboardEvents).toEqual({
      node: { name: 'Renamed while the replica is down' },
    });
    await load;
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);
    events.close();

    await replica.start();
    await expect.poll(() => readsOnReplica(b), { timeout: 5_000 }).toBe(1);
  });
});
