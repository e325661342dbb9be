import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstWrite, patroniStack, runFailover, type Stack } from '../helpers/chaos.js';
import { expectNoBug, expectWithinBound } from '../helpers/fault-assertions.js';
import { onDatabase, timedGraphQL, timedRest, type Answered } from '../helpers/faults.js';
import { subscribeSse, type Subscription } from '../helpers/live.js';
import { phaseTable } from '../helpers/load.js';
import type { PatroniCluster } from '../helpers/patroni.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { startGateway, type GatewayProcess } from '../helpers/processes.js';

// Failover on the high-availability stack most PostgreSQL deployments run: Patroni (two nodes,
// synchronous_mode) over etcd, HAProxy routing by Patroni's health checks. Two gateways take
// HAProxy's leader port as DATABASE_URL and its replica port as DATABASE_REPLICA_URLS; a third goes
// through PgBouncer in front of the leader itself, which the test points at the new leader after the
// failover, as an operator would; two more keep rate-limit buckets in the database. The test kills
// the leader's PostgreSQL under a mixed load and times every request.

const bounds = { DATABASE_CONNECT_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '5000' };
const BOUND_MS = 7_000;

let stack: Stack & { cluster: PatroniCluster };
let bouncer: PgBouncer;
/** On HAProxy's ports. */
let a: GatewayProcess;
let b: GatewayProcess;
/** Through PgBouncer. */
let c: GatewayProcess;
/** On HAProxy's leader port, with a rate limit of 5 requests. */
let limited: GatewayProcess[];

beforeAll(async () => {
  stack = await patroniStack('sync');
  const leader = await stack.cluster.leader();
  // PgBouncer retries a server it could not reach after server_login_retry (15 s by default).
  bouncer = await startPgBouncer({ host: '127.0.0.1', port: leader.port }, 4, {
    mode: 'session',
    settings: { server_login_retry: 1 },
  });
  const ha = { ...bounds, DATABASE_POOL_SIZE: '4', ...stack.env };
  const rateLimited = {
    ...bounds,
    DATABASE_POOL_SIZE: '2',
    DATABASE_URL: stack.env.DATABASE_URL,
    RATE_LIMIT: '0.5',
    RATE_LIMIT_BURST: '5',
  };
  const pooled = { ...bounds, DATABASE_POOL_SIZE: '4', DATABASE_URL: bouncer.url('gateway') };
  [a, b, c, ...limited] = await Promise.all(
    [ha, ha, pooled, rateLimited, rateLimited].map((env) => startGateway(env, stack.keys)),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all([a, b, c, ...(limited ?? [])].map((gateway) => gateway?.stop()));
  await bouncer?.stop();
  await stack?.remove();
});

const boardEvents = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) {
  ... on NodeChangedEvent { node { ... on Whiteboard { name } } } } }`;

/** The board names of the events `subscription` delivered within `ms` (each resolved when delivered). */
async function namesWithin(subscription: Subscription, ms: number): Promise<string[]> {
  const names: string[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return names;
    const event = await subscription.next(left).catch(() => undefined);
    if (!event) return names;
    names.push(event.data?.whiteboardEvents?.node?.name);
  }
}

const rename =
  'mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { name } } }';

describe('the leader killed under a mixed load on Patroni, etcd and HAProxy', () => {
  it('answers every request within the bound, writes within a connect timeout of HAProxy routing to the new leader, and 3 s of a re-pointed PgBouncer, loses no acknowledged write (nor tells a resumed stream less), and keeps subscriptions and read fences right', async () => {
    const { owner } = stack.keys;
    const watched = (
      await a.graphql(
        'mutation { createWhiteboard(input: { name: "Watched" }) { whiteboard { rowId organizationId } } }',
      )
    ).data!.createWhiteboard.whiteboard;
    const board = watched.rowId;
    const subscriptions = await Promise.all(
      [a, b].map((gateway) => subscribeSse(gateway.url, owner, boardEvents, { id: board })),
    );
    const report = await runFailover(stack, [a, b]);
    // The operator points PgBouncer at the new leader and reloads it.
    const newLeader = await stack.cluster.leader();
    await bouncer.retarget({ host: '127.0.0.1', port: newLeader.port });
    const retargeted = Date.now();
    const throughPgBouncerMs = (await firstWrite(c, owner, 'Through PgBouncer')) - retargeted;
    console.log(
      `${phaseTable(report.figures)}\n${JSON.stringify({
        routedAfterCrashMs: report.promotedAfterCrashMs,
        writesAfterRoutingMs: report.writesAfterPromotionMs,
        throughPgBouncerMs,
      })}`,
    );

    // A connection begun just before HAProxy routed waits out its connect timeout (HAProxy queues it
    // while no server is up), so the first write may follow the routing by that timeout.
    const connectTimeoutMs = Number(bounds.DATABASE_CONNECT_TIMEOUT_MS);
    for (const ms of report.writesAfterPromotionMs) expect(ms).toBeLessThan(connectTimeoutMs + 500);
    expect(throughPgBouncerMs).toBeLessThan(3_000);
    expectNoBug([a, b, c]);
    expectWithinBound(report.sent, BOUND_MS);
    expect(report.figures.map((each) => each.missingReads)).toEqual([0, 0, 0, 0]);
    expect(report.figures[3].readsAnswered).toBe(1);
    expect(report.acknowledged.length).toBeGreaterThan(20);
    expect(report.lost).toEqual([]);
    // Told of every acknowledged write: a stream resumed from a cursor taken before the load, and a webhook endpoint.
    expect(report.missingFromStream).toEqual([]);
    expect(report.undelivered).toEqual([]);

    // Live boards on both instances: every event committed after the failover arrives, none twice.
    const renames = ['After 1', 'After 2', 'After 3', 'After 4', 'After 5'];
    for (const [i, name] of renames.entries())
      expect((await timedGraphQL([a, b][i % 2].url, owner, rename, { id: board, name })).status).toBe(200);
    for (const subscription of subscriptions) {
      // One event per rename; a node is read when its event is delivered, so a late one shows a later name.
      const names = await namesWithin(subscription, 2_000);
      expect(names).toHaveLength(renames.length);
      expect(names.at(-1)).toBe('After 5');
      subscription.close();
    }
  }, 120_000);

  it('refuses a key revoked after the failover on every instance within 1 s', async () => {
    const created = await a.graphql(
      'mutation { createApiKey(input: { name: "After the failover", permission: READ_ONLY }) { secret apiKey { rowId } } }',
    );
    const { secret, apiKey } = created.data!.createApiKey;
    const me = '{ me { rowId } }';
    for (const gateway of [a, b]) expect((await gateway.graphql(me, {}, secret)).status).toBe(200);
    await a.graphql('mutation($id: Int!) { revokeApiKey(input: { rowId: $id }) { apiKey { revokedAt } } }', {
      id: apiKey.rowId,
    });
    await sleep(1_000);
    for (const gateway of [a, b]) expect((await gateway.graphql(me, {}, secret)).status).toBe(401);
  });

  it('shares rate-limit buckets between instances on the new leader', async () => {
    const { viewer } = stack.keys;
    const answers: Answered[] = [];
    for (let i = 0; i < 5; i++) answers.push(await timedRest(limited[0].url, viewer, 'GET', '/api/whiteboard/v1/'));
    // An instance reports what it spent every 100 ms.
    await sleep(500);
    answers.push(await timedRest(limited[1].url, viewer, 'GET', '/api/whiteboard/v1/'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    const { rows } = await onDatabase(stack.primaryUrl(), 'SELECT tokens FROM rate_limit_bucket');
    expect(rows.map((row: { tokens: number }) => row.tokens)).toEqual([expect.any(Number)]);
  });
});
