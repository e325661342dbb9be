import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { seedDemo } from '../../src/db/seed/index.js';
import type { DemoKeys } from '../../src/db/seed/keys.js';
import {
  eventually,
  holdRowLock,
  holdTransaction,
  onDatabase,
  timedGraphQL,
  timedRest,
  type Answered,
} from '../helpers/faults.js';
import { subscribeSse } from '../helpers/live.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { createPrivateCluster, createReplica, type PrivateCluster } from '../helpers/private-postgres.js';
import { startGateway, type GatewayProcess } from '../helpers/processes.js';

// Faults the tests make themselves on servers of this file's own, each request timed: a row lock held
// by another session, a statement that runs too long, a replica that stops answering mid-read, a
// server stopped with SIGSTOP (postmaster and backends), PgBouncer with no server behind it, and a
// transaction left open in another database of the server.
// The gateways run with short bounds, so that every request must be answered within 4 s.

const bounds = {
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  DATABASE_STATEMENT_TIMEOUT_MS: '3000',
  DATABASE_LOCK_TIMEOUT_MS: '1000',
};
/** The bound a request waits at most (a connection's and a statement's), and what a busy machine may add. */
const BOUND_MS = 4_000;
const SLACK_MS = 750;

let primary: PrivateCluster;
let replica: PrivateCluster;
let bouncer: PgBouncer;
let database: Database;
let keys: DemoKeys;
/** On the primary. */
let a: GatewayProcess;
/** On the primary, reading from the replica. */
let withReplica: GatewayProcess;
/** Through PgBouncer in session mode. */
let pooled: GatewayProcess;
let boards: number[];

const gatewayUrl = (cluster: PrivateCluster | PgBouncer) =>
  'url' in cluster && typeof cluster.url === 'string'
    ? cluster.url.replace(/\/postgres$/, '/gateway')
    : (cluster as PgBouncer).url('gateway');

beforeAll(async () => {
  primary = await createPrivateCluster();
  await primary.start();
  database = await openDatabase({ databaseUrl: gatewayUrl(primary), poolSize: 2 });
  keys = await seedDemo(database.prisma);
  replica = await createReplica(primary);
  await replica.start();
  // PgBouncer retries a server it could not reach after server_login_retry (15 s by default).
  bouncer = await startPgBouncer({ host: '127.0.0.1', port: primary.port }, 4, {
    mode: 'session',
    settings: { server_login_retry: 1 },
  });
  const env = { ...bounds, DATABASE_POOL_SIZE: '4', DATABASE_URL: gatewayUrl(primary) };
  [a, withReplica, pooled] = await Promise.all([
    startGateway(env, keys),
    startGateway({ ...env, DATABASE_REPLICA_URLS: gatewayUrl(replica) }, keys),
    startGateway({ ...env, DATABASE_URL: bouncer.url('gateway') }, keys),
  ]);
  const listed = await a.graphql('{ whiteboards(first: 3) { edges { node { rowId } } } }');
  boards = listed.data!.whiteboards.edges.map((edge: { node: { rowId: number } }) => edge.node.rowId);
});

afterAll(async () => {
  await Promise.all([a?.stop(), withReplica?.stop(), pooled?.stop()]);
  await database?.close();
  await bouncer?.stop();
  await replica?.remove();
  await primary?.remove();
});

const renameQuery =
  'mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { name } } }';
const boardQuery = 'query($id: Int!) { whiteboard(rowId: $id) { name } }';

const rename = (gateway: GatewayProcess, id: number, name: string, door: 'graphql' | 'rest') =>
  door === 'graphql'
    ? timedGraphQL(gateway.url, keys.owner, renameQuery, { id, name })
    : timedRest(gateway.url, keys.owner, 'PUT', `/api/whiteboard/v1/${id}/`, { name });

const read = (gateway: GatewayProcess, id: number, door: 'graphql' | 'rest') =>
  door === 'graphql'
    ? timedGraphQL(gateway.url, keys.owner, boardQuery, { id })
    : timedRest(gateway.url, keys.owner, 'GET', `/api/whiteboard/v1/${id}/`);

const doors = ['graphql', 'rest'] as const;
const nameOf = async (id: number) =>
  (await onDatabase(gatewayUrl(primary), 'SELECT name FROM whiteboard WHERE id = $1', [id])).rows[0].name;

/** Every answer came within the bound. */
function expectBounded(answers: Answered[]): void {
  const longest = Math.round(Math.max(...answers.map((answer) => answer.ms)));
  console.log(`${expect.getState().currentTestName}: ${answers.length} requests, the longest ${longest} ms`);
  for (const answer of answers) expect(answer.ms, JSON.stringify(answer)).toBeLessThan(BOUND_MS + SLACK_MS);
}

/** The log lines of a gateway with this message. */
const logged = (gateway: GatewayProcess, message: string) =>
  gateway.server.lines.out.filter((line) => line.includes(`"msg":"${message}`));

describe('a row lock held by another session', () => {
  it('answers renames of the locked board with DATABASE_TIMEOUT (or 503 when every write connection is taken), and reads of other boards at once', async () => {
    const [locked, other] = boards;
    const before = await nameOf(locked);
    const lock = await holdRowLock(gatewayUrl(primary), 'whiteboard', locked);
    try {
      const renames = Array.from({ length: 12 }, (_, i) => rename(a, locked, `Renamed ${i}`, doors[i % 2]));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const reads = await Promise.all(Array.from({ length: 5 }, (_, i) => read(a, other, doors[i % 2])));
      for (const answer of reads) {
        expect(answer.status).toBe(200);
        // The renames hold at most the write connections; the rest of the pool serves reads.
        expect(answer.ms).toBeLessThan(1_000);
      }
      const answered = await Promise.all(renames);
      expectBounded(answered);
      for (const answer of answered) {
        expect([504, 503]).toContain(answer.status);
        expect(answer.retryAfter).toBe('5');
      }
      const timedOut = answered.filter((answer) => answer.status === 504);
      expect(timedOut.length).toBeGreaterThanOrEqual(3);
      expect(timedOut.find((answer) => answer.body.errors)?.body.errors[0].extensions).toMatchObject({
        code: 'DATABASE_TIMEOUT',
        timeout: 'lock',
      });
      expect(timedOut.find((answer) => answer.body.detail)?.body.detail).toMatch(/locked by another change/);
    } finally {
      await lock.release();
    }
    expect(await nameOf(locked)).toBe(before);
    expect((await rename(a, locked, 'After the lock', 'graphql')).status).toBe(200);
    expect(await nameOf(locked)).toBe('After the lock');
  });
});

describe('a transaction left open in another database of the server', () => {
  it('holds back no live event: a rename by another instance reaches a subscriber within a second', async () => {
    const board = boards[2];
    const events = await subscribeSse(
      a.url,
      keys.owner,
      'subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) { ... on LiveEvent { kind type rowId } } }',
      { id: board },
    );
    // A transaction with an id, as any that has written: it is in every snapshot of the server.
    const open = await holdTransaction(primary.url, 'SELECT pg_current_xact_id()');
    try {
      const sent = Date.now();
      expect((await rename(withReplica, board, 'Renamed elsewhere', 'graphql')).status).toBe(200);
      expect((await events.next(2_000)).data.whiteboardEvents).toEqual({
        kind: 'UPDATED',
        type: 'Whiteboard',
        rowId: board,
      });
      expect(Date.now() - sent).toBeLessThan(1_000);
    } finally {
      events.close();
      await open.release();
    }
  });
});

describe('a statement that runs past its time', () => {
  it('is stopped by PostgreSQL and answered DATABASE_TIMEOUT (504 on REST), changing nothing', async () => {
    const before = await Promise.all(boards.slice(0, 2).map(nameOf));
    await onDatabase(
      gatewayUrl(primary),
      `CREATE FUNCTION slow_rename() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.name LIKE 'slow%' THEN PERFORM pg_sleep(20); END IF; RETURN NEW; END $$;
       CREATE TRIGGER slow_rename BEFORE UPDATE ON whiteboard FOR EACH ROW EXECUTE FUNCTION slow_rename();`,
    );
    try {
      // Two boards: a second rename of the same board would wait for the first one's lock.
      const [graphql, restAnswer] = await Promise.all(doors.map((door, i) => rename(a, boards[i], 'slow one', door)));
      expectBounded([graphql, restAnswer]);
      expect(graphql.ms).toBeGreaterThanOrEqual(2_900);
      expect(graphql).toMatchObject({ status: 504, retryAfter: '5' });
      expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'DATABASE_TIMEOUT', timeout: 'statement' });
      expect(restAnswer).toMatchObject({ status: 504, retryAfter: '5' });
      expect(restAnswer.body.detail).toMatch(/did not finish this operation in the time allowed/);
    } finally {
      await onDatabase(gatewayUrl(primary), 'DROP TRIGGER slow_rename ON whiteboard; DROP FUNCTION slow_rename();');
    }
    expect(await Promise.all(boards.slice(0, 2).map(nameOf))).toEqual(before);
  });
});

describe('a replica that stops answering mid-read', () => {
  it('costs no failed read: reads under way and later ones go to the primary within a poll or two', async () => {
    const [board] = boards;
    expect((await read(withReplica, board, 'graphql')).status).toBe(200);
    await replica.pause();
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => read(withReplica, board, doors[i % 2])));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.ms).toBeLessThan(2_500);
      }
    } finally {
      await replica.resume();
    }
  });
});

describe('a server that hangs (SIGSTOP to the postmaster and every backend)', () => {
  it('answers every read and write 503 with Retry-After within the bound, logs the outage once, and serves again once resumed', async () => {
    const [board] = boards;
    expect((await read(a, board, 'graphql')).status).toBe(200);
    await primary.pause();
    let answers: Answered[];
    try {
      answers = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => read(a, board, doors[i % 2])),
        ...Array.from({ length: 4 }, (_, i) =>
          i % 2
            ? timedRest(a.url, keys.owner, 'POST', '/api/whiteboard/v1/', { name: 'Never written' })
            : timedGraphQL(
                a.url,
                keys.owner,
                'mutation { createWhiteboard(input: { name: "Never written" }) { whiteboard { rowId } } }',
              ),
        ),
      ]);
    } finally {
      await primary.resume();
    }
    expectBounded(answers);
    for (const answer of answers) expect(answer).toMatchObject({ status: 503, retryAfter: '5' });
    await eventually(async () => (await read(a, board, 'rest')).status === 200, 10_000, 'a read after the resume');
    await eventually(
      () => logged(a, 'the database answers again').length === 1,
      5_000,
      'the end of the outage in the log',
    );
    expect(logged(a, 'the database cannot be reached')).toHaveLength(1);
    const [end] = logged(a, 'the database answers again').map((line) => JSON.parse(line));
    expect(end.answered503).toBeGreaterThanOrEqual(10);
    // No stack per request.
    expect(a.server.lines.out.filter((line) => /"stack"/.test(line))).toEqual([]);
    const { rows } = await onDatabase(
      gatewayUrl(primary),
      "SELECT count(*)::int AS n FROM whiteboard WHERE name = 'Never written'",
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('PgBouncer in session mode with no server behind it', () => {
  // PgBouncer refuses the timeouts as startup parameters: the gateway started because it sets them after connecting.
  it('answers 503 within the bound once the server is gone, and serves again once it is back', async () => {
    const [board] = boards;
    expect((await read(pooled, board, 'rest')).status).toBe(200);
    await primary.stop();
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => read(pooled, board, doors[i % 2])),
      rename(pooled, board, 'Never renamed', 'graphql'),
    ]);
    expectBounded(answers);
    for (const answer of answers) expect(answer).toMatchObject({ status: 503, retryAfter: '5' });
    await primary.start();
    await eventually(
      async () => (await read(pooled, board, 'rest')).status === 200,
      10_000,
      'a read once the server is back',
    );
  });
});
