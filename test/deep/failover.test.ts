import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multiHostStack, runFailover, type Stack } from '../helpers/chaos.js';
import { expectNoBug, expectWithinBound } from '../helpers/fault-assertions.js';
import { phaseTable } from '../helpers/load.js';
import type { PrivateCluster } from '../helpers/private-postgres.js';
import { startGateway, type GatewayProcess } from '../helpers/processes.js';

// A failover without a proxy or an HA manager: a primary and its synchronous standby of this file's
// own, and two gateways given both servers in libpq's multi-host form (DATABASE_URL read-write,
// DATABASE_REPLICA_URLS standby). Under a mixed load the test crashes the primary, leaves the
// standby alone for a while (the reads go on there), then promotes it itself.

const bounds = { DATABASE_CONNECT_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '5000', DATABASE_POOL_SIZE: '4' };
const BOUND_MS = 7_000;

let stack: Stack & { servers: PrivateCluster[] };
let gateways: GatewayProcess[];

const hosts = (...clusters: PrivateCluster[]) => clusters.map((cluster) => `127.0.0.1:${cluster.port}`).join(',');
const multiHost = (target: string, ...clusters: PrivateCluster[]) =>
  `postgresql://postgres@${hosts(...clusters)}/gateway?target_session_attrs=${target}`;
const start = (env: Record<string, string> = {}) => startGateway({ ...bounds, ...stack.env, ...env }, stack.keys);

beforeAll(async () => {
  stack = await multiHostStack('sync');
  gateways = await Promise.all([start(), start()]);
});

afterAll(async () => {
  await Promise.all((gateways ?? []).map((gateway) => gateway.stop()));
  await stack?.remove();
});

describe('libpq multi-host URLs', () => {
  it('start on the server that takes writes whichever comes first, and name every server', async () => {
    const [primary, standby] = stack.servers;
    const reversed = await start({ DATABASE_URL: multiHost('read-write', standby, primary) });
    try {
      expect(reversed.server.lines.out.join('\n')).toContain(`postgres at ${hosts(standby, primary)}/gateway`);
      const written = await reversed.graphql(
        'mutation { createWhiteboard(input: { name: "Reversed" }) { whiteboard { rowId } } }',
      );
      expect(written.status).toBe(200);
    } finally {
      await reversed.stop();
    }
  });

  it('refuse to start, naming each server, when none takes the sessions asked for', async () => {
    const [, standby] = stack.servers;
    const refused = await start({ DATABASE_URL: multiHost('primary', standby) }).catch((error: Error) => error);
    expect(String(refused)).toMatch(
      new RegExp(
        `no server of ${hosts(standby)}/gateway accepts primary sessions now \\(127\\.0\\.0\\.1:${standby.port}: a standby\\)`,
      ),
    );
  });
});

describe('a primary lost under a mixed load, its standby promoted by hand', () => {
  it('keeps reads answering from the standby, then follows the promotion within 5 s, losing no acknowledged write', async () => {
    const report = await runFailover(stack, gateways, { phaseMs: 2_500, outageMs: 4_000 });
    console.log(
      `${phaseTable(report.figures)}\nfirst write after the promotion: ${report.writesAfterPromotionMs.join(', ')} ms`,
    );

    for (const ms of report.writesAfterPromotionMs) expect(ms).toBeLessThan(5_000);
    expectNoBug(gateways);
    expectWithinBound(report.sent, BOUND_MS);
    const [healthy, away, , after] = report.figures;
    expect(healthy.readsAnswered).toBe(1);
    expect(away.readsAnswered).toBeGreaterThanOrEqual(0.8);
    // Mutations answer 503 meanwhile (a write sent as the server went down may still have committed).
    expect(away.writes['503']).toBeGreaterThan(10);
    expect(after.readsAnswered).toBe(1);
    // Read-your-writes on either gateway, through the outage and after.
    expect(report.figures.map((each) => each.missingReads)).toEqual([0, 0, 0, 0]);
    expect(report.acknowledged.length).toBeGreaterThan(20);
    expect(report.lost).toEqual([]);
    expect(report.missingFromStream).toEqual([]);
    expect(report.undelivered).toEqual([]);
  });
});
