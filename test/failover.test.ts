import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/index.js';
import { seedDemo } from '../src/db/seed/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';
import { eventually, onDatabase, timedGraphQL } from './helpers/faults.js';
import { lostWrites, MixedLoad, phases, phaseTable } from './helpers/load.js';
import { createPrivateCluster, createReplica, type PrivateCluster } from './helpers/private-postgres.js';
import { startGateway, type GatewayProcess } from './helpers/processes.js';

// A failover without a proxy or an HA manager: a primary and its synchronous standby of this file's
// own, and two gateways given both servers in libpq's multi-host form (DATABASE_URL read-write,
// DATABASE_REPLICA_URLS standby). Under a mixed load the test crashes the primary, leaves the
// standby alone for a while (the reads go on there), then promotes it itself.

const bounds = { DATABASE_CONNECT_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '5000' };
const BOUND_MS = 7_000;

let primary: PrivateCluster;
let standby: PrivateCluster;
let database: Database;
let keys: DemoKeys;
let gateways: GatewayProcess[];

const hosts = (...clusters: PrivateCluster[]) => clusters.map((cluster) => `127.0.0.1:${cluster.port}`).join(',');
const multiHost = (target: string, ...clusters: PrivateCluster[]) =>
  `postgresql://postgres@${hosts(...clusters)}/gateway?target_session_attrs=${target}`;
const inGateway = (cluster: PrivateCluster) => cluster.url.replace(/\/postgres$/, '/gateway');

function startInstance(env: Record<string, string> = {}): Promise<GatewayProcess> {
  return startGateway(
    {
      ...bounds,
      DATABASE_POOL_SIZE: '4',
      DATABASE_URL: multiHost('read-write', primary, standby),
      DATABASE_REPLICA_URLS: multiHost('standby', standby, primary),
      ...env,
    },
    keys,
  );
}

beforeAll(async () => {
  primary = await createPrivateCluster();
  await primary.start();
  database = await openDatabase({ databaseUrl: inGateway(primary), poolSize: 2 });
  keys = await seedDemo(database.prisma);
  await database.close();
  standby = await createReplica(primary);
  await standby.start();
  // Synchronous from now on: a commit is acknowledged once the standby has it.
  await onDatabase(primary.url, "ALTER SYSTEM SET synchronous_standby_names = '*'");
  await onDatabase(primary.url, 'SELECT pg_reload_conf()');
  await eventually(
    async () =>
      (await onDatabase(primary.url, 'SELECT sync_state FROM pg_stat_replication')).rows[0]?.sync_state === 'sync',
    10_000,
    'the standby becoming synchronous',
  );
  gateways = await Promise.all([startInstance(), startInstance()]);
});

afterAll(async () => {
  await Promise.all((gateways ?? []).map((gateway) => gateway.stop()));
  await standby?.remove();
  await primary?.remove();
});

const write = (gateway: GatewayProcess, name: string) =>
  timedGraphQL(
    gateway.url,
    keys.owner,
    'mutation($name: String!) { createWhiteboard(input: { name: $name }) { whiteboard { rowId } } }',
    {
      name,
    },
  );

describe('libpq multi-host URLs', () => {
  it('start on the server that takes writes whichever comes first, and name every server', async () => {
    const reversed = await startInstance({ DATABASE_URL: multiHost('read-write', standby, primary) });
    try {
      expect(reversed.server.lines.out.join('\n')).toContain(`postgres at ${hosts(standby, primary)}/gateway`);
      expect((await write(reversed, 'Through the reversed URL')).status).toBe(200);
    } finally {
      await reversed.stop();
    }
  });

  it('refuse to start, naming each server, when none takes the sessions asked for', async () => {
    const refused = await startGateway({ ...bounds, DATABASE_URL: multiHost('primary', standby) }, keys).catch(
      (error: Error) => error,
    );
    expect(String(refused)).toMatch(
      new RegExp(
        `no server of ${hosts(standby)}/gateway accepts primary sessions now \\(127\\.0\\.0\\.1:${standby.port}: a standby\\)`,
      ),
    );
  });
});

describe('a primary lost under a mixed load, its standby promoted by hand', () => {
  it('keeps reads answering from the standby, then follows the promotion within 5 s, losing no acknowledged write', async () => {
    const load = new MixedLoad(
      gateways.map((gateway) => ({ url: gateway.url, key: keys.owner })),
      { writers: 4, readers: 2 },
    );
    const start = Date.now();
    await sleep(2_500);
    const lost = Date.now();
    await primary.crash();
    await sleep(4_000);
    const promoting = Date.now();
    await standby.promote();
    const promoted = Date.now();
    const firstWrites = await Promise.all(
      gateways.map(async (gateway, i) => {
        let answer = await write(gateway, `After the promotion ${i}`);
        while (answer.status !== 200 && Date.now() - promoted < 10_000) {
          await sleep(50);
          answer = await write(gateway, `After the promotion ${i}`);
        }
        return Date.now() - promoted;
      }),
    );
    const recovered = Date.now();
    await sleep(2_000);
    const sent = await load.stop();
    const end = Date.now();
    const figures = phases(sent, [
      ['healthy', start, lost],
      ['primary lost', lost, promoting],
      ['promoted', promoting, recovered],
      ['recovered', recovered, end],
    ]);
    console.log(`${phaseTable(figures)}\nfirst write after the promotion, per gateway: ${firstWrites.join(', ')} ms`);

    for (const ms of firstWrites) expect(ms).toBeLessThan(5_000);
    for (const each of sent) {
      expect([200, 201, 503, 504], JSON.stringify(each)).toContain(each.status);
      expect(each.ms).toBeLessThan(BOUND_MS + 750);
    }
    const [healthy, away, , after] = figures;
    expect(healthy.readsAnswered).toBe(1);
    expect(away.readsAnswered).toBeGreaterThanOrEqual(0.8);
    expect(Object.keys(away.writes)).toEqual(['503']);
    expect(after.readsAnswered).toBe(1);
    // Read-your-writes on either gateway, through the outage and after.
    expect(figures.map((each) => each.missingReads)).toEqual([0, 0, 0, 0]);
    const present = new Set(
      (await onDatabase(inGateway(standby), 'SELECT id FROM whiteboard')).rows.map((row: { id: number }) => row.id),
    );
    expect(load.acknowledged.length).toBeGreaterThan(20);
    expect(lostWrites(load.acknowledged, present)).toEqual([]);
  });
});
