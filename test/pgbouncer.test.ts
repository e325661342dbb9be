import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/index.js';
import type { DemoKeys } from '../src/db/seed/keys.js';
import { openTestDatabase, postgresServerUrl } from './helpers/database.js';
import { legacyContract } from './helpers/legacy-contract.js';
import { subscribeSse } from './helpers/live.js';
import { startPgBouncer, type PgBouncer } from './helpers/pgbouncer.js';
import { startGateway, type GatewayProcess } from './helpers/processes.js';

// Two gateway processes behind Debian's PgBouncer (1.18: a named statement prepared on one server
// connection is unknown to the others) in transaction mode, with DATABASE_DIRECT_URL for what needs a
// session. Two server connections for eight client connections, so consecutive statements of a
// client meet different server connections. The database is this file's own on a PostgreSQL server,
// whatever engine the other files use.

let database: Database;
let keys: DemoKeys;
let drop: () => Promise<void>;
let bouncer: PgBouncer;
let a: GatewayProcess;
let b: GatewayProcess;

beforeAll(async () => {
  const opened = await openTestDatabase(postgresServerUrl());
  ({ database, keys, drop } = opened);
  const direct = new URL(opened.url!);
  bouncer = await startPgBouncer({ host: direct.hostname, port: Number(direct.port || 5432) }, 2);
  const pooled = bouncer.url(direct.pathname.slice(1));
  const env = { DATABASE_URL: pooled, DATABASE_DIRECT_URL: opened.url!, DATABASE_POOL_SIZE: '4' };
  [a, b] = await Promise.all([startGateway(env, keys), startGateway(env, keys)]);
});

afterAll(async () => {
  expect(await Promise.all([a?.stop(), b?.stop()])).toEqual([0, 0]);
  await bouncer?.stop();
  await drop?.();
});

const nested = `{ whiteboards(first: 50) { totalCount edges { node { rowId name author { email }
  dataStreams { edges { node { name slides { edges { node { order name } } } } } } } } } }`;

describe('the gateway through PgBouncer in transaction mode', () => {
  it('detects that the pooler keeps no named statements and runs its planned statements unnamed', () => {
    for (const instance of [a, b]) {
      expect(instance.server.lines.out.join('\n')).toMatch(
        new RegExp(`127\\.0\\.0\\.1:${bouncer.port}/\\S+ \\(a pooler; sessions at \\S+; read plans unnamed\\)`),
      );
    }
  });

  it('says at start that statements through the pooler have no server-side timeout while the role sets none', () => {
    // The pooler hands its server connections to other clients: the gateway cannot set statement_timeout there.
    for (const instance of [a, b]) {
      expect(instance.server.lines.out.join('\n')).toContain(
        'statements through the pooler have no statement_timeout on the server',
      );
    }
  });

  describe('the legacy REST contract', () => legacyContract(() => a));

  it('answers a nested read again and again on both instances as PostgreSQL holds it', async () => {
    const owner = (await a.graphql('{ me { rowId } }')).data!.me.rowId;
    const [{ boards }] = await database.prisma.$queryRaw<{ boards: number }[]>`
      SELECT count(*)::int AS boards FROM whiteboard
      WHERE organization_id IN (SELECT organization_id FROM user_organization WHERE user_id = ${owner})`;
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await (i % 2 ? b : a).graphql(nested));
    expect(answers[0].errors).toBeUndefined();
    expect(answers[0].data!.whiteboards.totalCount).toBe(boards);
    expect(answers[0].data!.whiteboards.edges[0].node.dataStreams.edges.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('writes through one instance what the other reads, and tells its subscribers', async () => {
    const created = await a.graphql(
      'mutation($name: String!) { createWhiteboard(input: { name: $name }) { whiteboard { rowId } } }',
      { name: 'Through PgBouncer' },
    );
    const { rowId } = created.data!.createWhiteboard.whiteboard;
    expect((await b.graphql('query($id: Int!) { whiteboard(rowId: $id) { name } }', { id: rowId })).data).toEqual({
      whiteboard: { name: 'Through PgBouncer' },
    });

    const events = await subscribeSse(
      b.url,
      keys.viewer,
      `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on NodeChangedEvent { kind node { ... on Whiteboard { name } } } } }`,
      { id: rowId },
    );
    const sentAt = Date.now();
    await a.graphql(
      'mutation($id: Int!) { updateWhiteboard(input: { rowId: $id, name: "Renamed through PgBouncer" }) { whiteboard { name } } }',
      { id: rowId },
    );
    expect((await events.next(1_000)).data.whiteboardEvents).toEqual({
      kind: 'UPDATED',
      node: { name: 'Renamed through PgBouncer' },
    });
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    events.close();
  });
});
