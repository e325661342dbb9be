import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, postgresServerUrl } from '../helpers/database.js';
import { subscribeSse, type Subscription } from '../helpers/live.js';
import { startGateway, type GatewayProcess } from '../helpers/processes.js';

// The change log as a durable stream, on PostgreSQL: 8 writers make 10,000 changes while a
// subscriber reads them through instance A; A is killed (SIGKILL) mid-stream and the subscriber
// resumes on instance B with its last cursor. Every change arrives once, in the log's order.

const WRITERS = 8;
const CHANGES = 10_000;

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let a: GatewayProcess;
let b: GatewayProcess;
let boards: number[];
let organizationId: number;

const organizationEvents = `subscription($id: Int!, $after: String) {
  organizationWhiteboardEvents(organizationId: $id, after: $after) { ... on LiveEvent { kind rowId cursor } } }`;
const rename = `mutation($id: Int!, $name: String!) { updateWhiteboard(input: { rowId: $id, name: $name }) { whiteboard { rowId } } }`;
const changes = `query($id: Int!, $after: String) { changes(organizationId: $id, after: $after, first: 1000) {
  edges { cursor node { ... on LiveEvent { kind type rowId } } } pageInfo { hasNextPage endCursor } } }`;

beforeAll(async () => {
  database = await openTestDatabase(postgresServerUrl());
  const env = { DATABASE_URL: database.url!, DATABASE_POOL_SIZE: '6', LIVE_POLL_MS: '20', LOG_LEVEL: 'error' };
  [a, b] = await Promise.all([startGateway(env, database.keys), startGateway(env, database.keys)]);
  const owned = await database.database.prisma.whiteboard.findMany({ where: { organizationId: 1 }, take: WRITERS });
  boards = owned.map((board) => board.id);
  organizationId = 1;
}, 120_000);

afterAll(async () => {
  for (const gateway of [a, b]) if (gateway?.server.child.exitCode === null) await gateway.stop();
  await database?.drop();
});

/** Every change of the organization after `after`, as the `changes` pages tell them, with the cursor to read on from. */
async function logAfter(after: string | undefined): Promise<{ cursors: string[]; end: string }> {
  const cursors: string[] = [];
  for (;;) {
    const page = (await b.graphql(changes, { id: organizationId, after })).data!.changes;
    cursors.push(...page.edges.filter((edge: any) => edge.node.type === 'Whiteboard').map((edge: any) => edge.cursor));
    after = page.pageInfo.endCursor;
    if (!page.pageInfo.hasNextPage) return { cursors, end: after! };
  }
}

/** Reads `subscription` into `cursors` until it ends (its instance was killed) or `stop` holds. */
async function readInto(subscription: Subscription, cursors: string[], stop: () => boolean): Promise<void> {
  while (!stop()) {
    const result = await subscription.next(5_000).catch(() => undefined);
    if (!result?.data) return;
    cursors.push(result.data.organizationWhiteboardEvents.cursor);
  }
}

describe('a subscriber across the loss of its instance', () => {
  it(`gets each of ${CHANGES} changes of ${WRITERS} writers once, in the log's order, resuming on another instance after SIGKILL`, async () => {
    const { end: start } = await logAfter(undefined);
    const received: string[] = [];
    const onA = await subscribeSse(a.url, database.keys.viewer, organizationEvents, {
      id: organizationId,
      after: start,
    });
    let acknowledged = 0;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let n = writer; n < CHANGES; n += WRITERS) {
        const answer = await b.graphql(rename, { id: boards[writer % boards.length], name: `Stream ${n}` });
        expect(answer.errors).toBeUndefined();
        acknowledged++;
      }
    });
    const reading = readInto(onA, received, () => false);
    // Mid-stream, A dies as a crash would: no goodbye to its subscribers.
    while (received.length < CHANGES / 3) await new Promise((resolve) => setTimeout(resolve, 20));
    a.server.child.kill('SIGKILL');
    await reading;
    const beforeKill = received.length;
    const onB = await subscribeSse(
      b.url,
      database.keys.viewer,
      organizationEvents,
      { id: organizationId },
      { 'last-event-id': received.at(-1)! },
    );
    await Promise.all(writers);
    await readInto(onB, received, () => received.length >= CHANGES);
    onB.close();
    const { cursors: logged } = await logAfter(start);
    console.log(JSON.stringify({ changes: acknowledged, readOnA: beforeKill, readOnB: received.length - beforeKill }));
    expect(acknowledged).toBe(CHANGES);
    expect(logged).toHaveLength(CHANGES);
    expect(new Set(received).size).toBe(received.length);
    expect(received).toEqual(logged);
  }, 600_000);

  it('catches a client up from a cursor taken before all of them (away while they were made), by pages and by a stream', async () => {
    const { end: now } = await logAfter(undefined);
    const { cursors: missed } = await logAfter(undefined);
    // Everything since the database was made: the demo data's board changes and the 10,000 above.
    expect(missed.length).toBeGreaterThanOrEqual(CHANGES);
    const first = missed[0];
    const stream = await subscribeSse(b.url, database.keys.viewer, organizationEvents, {
      id: organizationId,
      after: first,
    });
    const caughtUp: string[] = [];
    await readInto(stream, caughtUp, () => caughtUp.length >= missed.length - 1);
    stream.close();
    expect(caughtUp).toEqual(missed.slice(1));
    expect((await logAfter(now)).cursors).toEqual([]);
  }, 300_000);
});
