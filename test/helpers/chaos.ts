import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase } from '../../src/db/index.js';
import { seedDemo } from '../../src/db/seed/index.js';
import type { DemoKeys } from '../../src/db/seed/keys.js';
import { eventually, onDatabase, timedGraphQL } from './faults.js';
import { subscribeSse } from './live.js';
import { Receiver, webhookEnv } from './webhooks.js';
import { lostWrites, MixedLoad, phases, type PhaseFigures, type Sent } from './load.js';
import { startPatroniCluster, type PatroniCluster } from './patroni.js';
import { createPrivateCluster, createReplica, type PrivateCluster } from './private-postgres.js';

// A primary lost under a mixed load, on one of two stacks: Patroni with etcd and HAProxy (it
// promotes the standby itself), or two clusters in libpq's multi-host form (the run promotes the
// standby after a while). The failover tests and `npm run chaos` both run it; one report of phases.

export const DATABASE = 'gateway';

export interface Stack {
  name: string;
  /** The gateway's DATABASE_URL and DATABASE_REPLICA_URLS, and webhooks delivered to loopback receivers. */
  env: Record<string, string>;
  keys: DemoKeys;
  /** Stops the primary's PostgreSQL as a crash does. */
  crash(): Promise<void>;
  /** Resolves once a new primary takes writes where DATABASE_URL leads (Patroni: by itself; otherwise promoted now). */
  promote(): Promise<void>;
  /** A URL of the primary now, to count the rows it holds. */
  primaryUrl(): string;
  remove(): Promise<void>;
}

export type Replication = 'sync' | 'async';

/** Creates and seeds the gateway's database on the primary at `url`. */
async function seed(url: string): Promise<DemoKeys> {
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    return await seedDemo(database.prisma);
  } finally {
    await database.close();
  }
}

/** When `url` first answers as a primary (Date.now()), asking every 50 ms. */
async function answersAsPrimary(url: string): Promise<void> {
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 500 });
    client.on('error', () => {});
    try {
      await client.connect();
      if (!(await client.query('SELECT pg_is_in_recovery() AS standby')).rows[0].standby) return;
    } catch {
      // Not yet.
    } finally {
      void client.end().catch(() => {});
    }
    await sleep(50);
  }
}

/** Patroni's two nodes (synchronous_mode as asked) behind HAProxy: DATABASE_URL its leader port, the replicas its replica port. */
export async function patroniStack(replication: Replication = 'sync'): Promise<Stack & { cluster: PatroniCluster }> {
  const cluster = await startPatroniCluster({ synchronous: replication === 'sync' });
  try {
    const keys = await seed(cluster.primaryUrl(DATABASE));
    return {
      name: `Patroni (${replication}), etcd, HAProxy`,
      cluster,
      keys,
      env: {
        DATABASE_URL: cluster.primaryUrl(DATABASE),
        DATABASE_REPLICA_URLS: cluster.replicaUrl(DATABASE),
        ...webhookEnv,
      },
      crash: async () => cluster.crashPostgres(await cluster.leader()),
      promote: () => answersAsPrimary(cluster.primaryUrl(DATABASE)),
      primaryUrl: () => cluster.primaryUrl(DATABASE),
      remove: () => cluster.remove(),
    };
  } catch (error) {
    await cluster.remove();
    throw error;
  }
}

/** A primary and its standby (synchronous or not), both in each URL in libpq's multi-host form; the run promotes the standby. */
export async function multiHostStack(
  replication: Replication = 'sync',
): Promise<Stack & { servers: PrivateCluster[] }> {
  const primary = await createPrivateCluster();
  const servers = [primary];
  try {
    await primary.start();
    const keys = await seed(primary.url.replace(/\/postgres$/, `/${DATABASE}`));
    const standby = await createReplica(primary);
    servers.push(standby);
    await standby.start();
    if (replication === 'sync') {
      // Synchronous from now on: a commit is acknowledged once the standby has it.
      await onDatabase(primary.url, "ALTER SYSTEM SET synchronous_standby_names = '*'");
      await onDatabase(primary.url, 'SELECT pg_reload_conf()');
      const sync = async () =>
        (await onDatabase(primary.url, 'SELECT sync_state FROM pg_stat_replication')).rows[0]?.sync_state === 'sync';
      await eventually(sync, 10_000, 'the standby becoming synchronous');
    }
    const hosts = (...clusters: PrivateCluster[]) => clusters.map((cluster) => `127.0.0.1:${cluster.port}`).join(',');
    const url = (target: string, ...clusters: PrivateCluster[]) =>
      `postgresql://postgres@${hosts(...clusters)}/${DATABASE}?target_session_attrs=${target}`;
    return {
      name: `two servers in a multi-host URL (${replication})`,
      servers,
      keys,
      env: {
        DATABASE_URL: url('read-write', primary, standby),
        DATABASE_REPLICA_URLS: url('standby', standby, primary),
        ...webhookEnv,
      },
      crash: () => primary.crash(),
      promote: () => standby.promote(),
      primaryUrl: () => standby.url.replace(/\/postgres$/, `/${DATABASE}`),
      async remove() {
        for (const server of servers) await server.remove();
      },
    };
  } catch (error) {
    for (const server of servers) await server.remove();
    throw error;
  }
}

export interface Gateway {
  url: string;
}

export interface FailoverOptions {
  writers?: number;
  readers?: number;
  /** How long the load runs before the crash, and after the new primary takes writes. @default 3000 */
  phaseMs?: number;
  /** How long after the crash `promote` is called (Patroni promotes by itself meanwhile). @default 0 */
  outageMs?: number;
}

export interface FailoverReport {
  figures: PhaseFigures[];
  sent: Sent[];
  acknowledged: number[];
  /** Acknowledged writes the new primary lacks. */
  lost: number[];
  /** Acknowledged writes that a stream resumed after the failover, from a cursor taken before the crash, never told. */
  missingFromStream: number[];
  /** Acknowledged writes whose webhook (an endpoint made before the load) never came. */
  undelivered: number[];
  /** From the crash to the new primary taking writes where DATABASE_URL leads. */
  promotedAfterCrashMs: number;
  /** From that moment to each gateway's first acknowledged write. */
  writesAfterPromotionMs: number[];
}

const createBoard = 'mutation($name: String!) { createWhiteboard(input: { name: $name }) { whiteboard { rowId } } }';
const createEndpoint = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`;
const activeOrganization = 'query { me { organizationId } }';
const logEnd = 'query($id: Int!) { changes(organizationId: $id, first: 1) { pageInfo { endCursor } } }';
const createdBoards = `subscription($id: Int!, $after: String) {
  organizationWhiteboardEvents(organizationId: $id, after: $after) { ... on LiveEvent { kind rowId } } }`;

/** Where the change log of the caller's active organization (where its boards are created) stands now. */
async function logNow(gateway: Gateway, key: string): Promise<{ organizationId: number; cursor: string }> {
  const organizationId = (await timedGraphQL(gateway.url, key, activeOrganization)).body.data.me.organizationId;
  const cursor = (await timedGraphQL(gateway.url, key, logEnd, { id: organizationId })).body.data.changes.pageInfo
    .endCursor;
  return { organizationId, cursor };
}

/** The boards of `acknowledged` whose creation a stream resumed from `from` does not tell within `waitMs` of its last event. */
async function missingFromResumedStream(
  gateway: Gateway,
  key: string,
  from: { organizationId: number; cursor: string },
  acknowledged: number[],
  waitMs = 5_000,
): Promise<number[]> {
  const stream = await subscribeSse(gateway.url, key, createdBoards, { id: from.organizationId, after: from.cursor });
  const told = new Set<number>();
  try {
    while (!acknowledged.every((board) => told.has(board))) {
      const event = await stream.next(waitMs).catch(() => undefined);
      if (!event) break;
      const { kind, rowId } = event.data.organizationWhiteboardEvents;
      if (kind === 'CREATED') told.add(rowId);
    }
  } finally {
    stream.close();
  }
  return acknowledged.filter((board) => !told.has(board));
}

/** Writes through `gateway` until one is acknowledged; resolves with when it was (Date.now()). */
export async function firstWrite(gateway: Gateway, key: string, name: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while ((await timedGraphQL(gateway.url, key, createBoard, { name })).status !== 200) {
    if (Date.now() > deadline) throw new Error(`no write through ${gateway.url} within ${timeoutMs} ms`);
    await sleep(50);
  }
  return Date.now();
}

/** A receiver of the organization's board creations, verifying each delivery with the `standardwebhooks` package. */
async function creationsReceiver(gateway: Gateway, key: string, organizationId: number): Promise<Receiver> {
  const receiver = await Receiver.start();
  const input = { organizationId, url: receiver.url, eventTypes: ['whiteboard.created'] };
  receiver.secret = (
    await timedGraphQL(gateway.url, key, createEndpoint, { input })
  ).body.data.createWebhookEndpoint.secret;
  return receiver;
}

/**
 * The boards of `acknowledged` whose creation `receiver` has not had (verified) once none came for
 * `quietMs`: a backlog still being delivered is waited for, a delivery that stopped is reported.
 */
async function undeliveredOnceQuiet(receiver: Receiver, acknowledged: number[], quietMs = 60_000): Promise<number[]> {
  const missing = () => {
    const delivered = new Set(receiver.received.filter((r) => r.verified).map((r) => r.body.data.whiteboardId));
    return acknowledged.filter((board) => !delivered.has(board));
  };
  let received = receiver.received.length;
  let lastArrival = Date.now();
  while (missing().length && Date.now() - lastArrival < quietMs) {
    await sleep(100);
    if (receiver.received.length !== received) [received, lastArrival] = [receiver.received.length, Date.now()];
  }
  return missing();
}

/**
 * Runs a mixed load through `gateways` (the demo owner's key), crashes the primary, promotes a new
 * one, and reports the phases: healthy, primary lost, promoted (until every gateway wrote), recovered;
 * then resumes a stream of the organization's changes from a cursor taken before the load, and waits
 * for the webhooks of an endpoint made before it.
 */
export async function runFailover(
  stack: Stack,
  gateways: Gateway[],
  options: FailoverOptions = {},
): Promise<FailoverReport> {
  const { writers = 4, readers = 2, phaseMs = 3_000, outageMs = 0 } = options;
  const key = stack.keys.owner;
  const before = await logNow(gateways[0], key);
  const receiver = await creationsReceiver(gateways[0], key, before.organizationId);
  const load = new MixedLoad(
    gateways.map((gateway) => ({ url: gateway.url, key })),
    { writers, readers },
  );
  const start = Date.now();
  await sleep(phaseMs);
  // Requests sent while the crash is under way belong to the outage, whatever they met.
  const crashed = Date.now();
  await stack.crash();
  await sleep(outageMs);
  await stack.promote();
  const promoted = Date.now();
  const firstWrites = await Promise.all(
    gateways.map((gateway, i) => firstWrite(gateway, key, `After the failover ${i}`)),
  );
  const recovered = Math.max(...firstWrites);
  await sleep(phaseMs);
  const sent = await load.stop();
  const end = Date.now();
  const present = new Set(
    (await onDatabase(stack.primaryUrl(), 'SELECT id FROM whiteboard')).rows.map((row: { id: number }) => row.id),
  );
  return {
    figures: phases(sent, [
      ['healthy', start, crashed],
      ['primary lost', crashed, promoted],
      ['promoted', promoted, recovered],
      ['recovered', recovered, end],
    ]),
    sent,
    acknowledged: load.acknowledged,
    lost: lostWrites(load.acknowledged, present),
    missingFromStream: await missingFromResumedStream(gateways.at(-1)!, key, before, load.acknowledged),
    undelivered: await undeliveredOnceQuiet(receiver, load.acknowledged).finally(() => receiver.close()),
    promotedAfterCrashMs: promoted - crashed,
    writesAfterPromotionMs: firstWrites.map((at) => at - promoted),
  };
}
