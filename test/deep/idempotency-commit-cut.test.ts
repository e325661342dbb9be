import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';
import { CommitCutProxy, type Cut } from '../helpers/commit-cut-proxy.js';
import { postgresServerUrl } from '../helpers/database.js';
import { sendGraphQL } from '../helpers/graphql.js';
import { createBoardKeyed } from '../helpers/idempotency.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// A create whose connection is cut at its COMMIT (half the time before the server gets it, half
// after: then it commits and its answer is lost) is answered OUTCOME_UNKNOWN; sent again with its
// Idempotency-Key, it makes exactly one row, whichever way the COMMIT went: 1,000 times out of 1,000.
// The gateway reaches PostgreSQL through a proxy that makes the cut; the rows are counted on a
// connection of their own.

const ROUNDS = Number(process.env.COMMIT_CUT_ROUNDS ?? 1000);

let server: TestServer;
let proxy: CommitCutProxy;

beforeAll(async () => {
  server = await startTestServer(
    { DATABASE_CONNECT_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '5000' },
    {
      serverUrl: postgresServerUrl(),
      async openGatewayDatabase(databaseUrl) {
        const url = new URL(databaseUrl);
        proxy = new CommitCutProxy({ host: url.hostname, port: Number(url.port || 5432) });
        url.host = `127.0.0.1:${await proxy.start()}`;
        return openDatabase({
          databaseUrl: url.toString(),
          poolSize: 4,
          // Every statement of the gateway's own is parsed each time it runs, so the proxy sees the rename's text every time.
          preparedStatements: 'unnamed',
          databaseBounds: { connectTimeoutMs: 2000, statementTimeoutMs: 5000, lockTimeoutMs: 2000 },
        });
      },
    },
  );
});

afterAll(async () => {
  await server?.close();
  await proxy?.stop();
}, 60_000);

const send = (name: string, key: string) => createBoardKeyed(server, name, key);

it(`a create cut at COMMIT and retried with its key makes exactly one row, ${ROUNDS} times out of ${ROUNDS}`, async () => {
  const outcomes = { before: 0, after: 0, committed: 0, rolledBack: 0 };
  const prisma = server.database.prisma;
  for (let round = 0; round < ROUNDS; round++) {
    const [name, key] = [`Cut ${round} ${randomUUID()}`, randomUUID()];
    const cut: Cut = round % 2 === 0 ? 'before' : 'after';
    proxy.arm(cut);
    const first = await send(name, key);
    expect(proxy.cuts).toHaveLength(round + 1);
    expect(first).toMatchObject({
      status: 503,
      retryAfter: '5',
      body: { errors: [{ extensions: { code: 'OUTCOME_UNKNOWN' } }] },
    });
    expect(first.body.data).toBeUndefined();
    outcomes[cut]++;
    // What the cut left: the row when the server got the COMMIT (it may still be committing), else none.
    const left = cut === 'after' ? 1 : 0;
    await expect.poll(() => prisma.whiteboard.count({ where: { name } })).toBe(left);
    outcomes[left === 1 ? 'committed' : 'rolledBack']++;
    const retried = await send(name, key);
    expect(retried.status).toBe(200);
    expect(retried.body.errors).toBeUndefined();
    expect(retried.body.data.createWhiteboard.whiteboard.name).toBe(name);
    const rows = await prisma.whiteboard.findMany({ where: { name }, select: { id: true } });
    expect(rows).toEqual([{ id: retried.body.data.createWhiteboard.whiteboard.rowId }]);
  }
  // Both ways of the cut happened, and each left what it should: a COMMIT cut after it reached the server committed.
  expect(outcomes.before).toBe(Math.ceil(ROUNDS / 2));
  expect(outcomes.after).toBe(Math.floor(ROUNDS / 2));
  expect(outcomes.committed).toBe(outcomes.after);
  expect(outcomes.rolledBack).toBe(outcomes.before);
}, 600_000);

const rename = `mutation($input: UpdateWhiteboardInput!) { updateWhiteboard(input: $input) { whiteboard { rowId name } } }`;
const ROUNDS_OF_RENAMES = Math.min(ROUNDS, 100);

it(`a rename (one statement, its own transaction) cut as it is sent is OUTCOME_UNKNOWN, and retried with its key is made once, ${ROUNDS_OF_RENAMES} times`, async () => {
  const prisma = server.database.prisma;
  const board = await prisma.whiteboard.create({ data: { name: 'Cut rename', organizationId: 1, authorId: 1 } });
  for (let round = 0; round < ROUNDS_OF_RENAMES; round++) {
    const [name, key] = [`Cut rename ${round} ${randomUUID()}`, randomUUID()];
    const cut: Cut = round % 2 === 0 ? 'before' : 'after';
    proxy.arm(cut, /^WITH target AS/);
    const send = () =>
      sendGraphQL(server.url, rename, {
        variables: { input: { rowId: board.id, name } },
        key: server.keys.owner,
        headers: { 'Idempotency-Key': key },
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const first = await send();
    expect(first).toMatchObject({ status: 503, body: { errors: [{ extensions: { code: 'OUTCOME_UNKNOWN' } }] } });
    const retried = await send();
    expect(retried.body).toEqual({ data: { updateWhiteboard: { whiteboard: { rowId: board.id, name } } } });
    // One entry in the change log for the request, whichever way the cut went.
    const request = await prisma.idempotencyKey.findFirstOrThrow({ where: { key } });
    expect(await prisma.userActionLog.count({ where: { requestId: request.id } })).toBe(1);
  }
}, 600_000);

it('a REST POST cut at COMMIT is 503 with Retry-After and its own detail, and retried with its key makes one row', async () => {
  const prisma = server.database.prisma;
  for (let round = 0; round < Math.min(ROUNDS, 20); round++) {
    const [name, key] = [`Cut REST ${round} ${randomUUID()}`, randomUUID()];
    proxy.arm(round % 2 === 0 ? 'before' : 'after');
    const post = () =>
      fetch(`${server.url}/api/whiteboard/v1/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.keys.owner, 'Idempotency-Key': key },
        body: JSON.stringify({ name }),
      });
    const first = await post();
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('5');
    expect((await first.json()).detail).toMatch(/may or may not have been made/);
    const retried = await post();
    expect(retried.status).toBe(201);
    const body = await retried.json();
    expect(body.name).toBe(name);
    expect(await prisma.whiteboard.findMany({ where: { name }, select: { id: true } })).toEqual([{ id: body.id }]);
  }
}, 120_000);
