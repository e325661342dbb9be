import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { firstBoard, type DemoBoard } from './helpers/demo-ids.js';
import { Receiver, webhookEnv } from './helpers/webhooks.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { logFeed } from '../src/webhooks/log-feed.js';

// Webhooks read from the change log itself: real mutations of the gateway, delivered by its own
// dispatcher to a receiver that verifies every signature with the `standardwebhooks` package.

let server: TestServer;
let receiver: Receiver;
let board: DemoBoard;

const create = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret webhookEndpoint { rowId } } }`;
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { name } } }`;
const changes = `query($organization: Int!, $after: String) {
  changes(organizationId: $organization, after: $after, first: 1000) { edges { cursor node { ... on LiveEvent { kind type rowId } } } pageInfo { endCursor } }
}`;

beforeAll(async () => {
  server = await startTestServer({ ...webhookEnv, LOG_LEVEL: 'error' });
  board = await firstBoard(server);
});
afterEach(async () => {
  await receiver?.close();
  await server.database.prisma.webhookEndpoint.deleteMany();
});
afterAll(() => server?.close());

/** An endpoint of the board's organization at a new receiver, made as an administrator makes one. */
async function endpoint(input: Record<string, unknown> = {}): Promise<number> {
  receiver = await Receiver.start();
  const made = await server.graphql(create, {
    input: { organizationId: board.organizationId, url: receiver.url, eventTypes: ['*'], ...input },
  });
  expect(made.errors).toBeUndefined();
  receiver.secret = made.data!.createWebhookEndpoint.secret;
  return made.data!.createWebhookEndpoint.webhookEndpoint.rowId;
}

describe('webhooks read from the change log', () => {
  it('deliver every change made after the endpoint, signed, in commit order, naming the cursor the log gives', async () => {
    await endpoint();
    const start = (await server.graphql(changes, { organization: board.organizationId })).data!.changes.pageInfo
      .endCursor;
    for (let i = 1; i <= 5; i++) await server.graphql(rename, { rowId: board.rowId, name: `Hooked ${i}` });
    const received = await receiver.waitFor(5);
    expect(received.every((request) => request.verified)).toBe(true);
    const logged = (await server.graphql(changes, { organization: board.organizationId, after: start })).data!.changes
      .edges;
    expect(received.map((request) => request.body.data.cursor)).toEqual(
      logged.map((edge: { cursor: string }) => edge.cursor),
    );
    expect(received.map((request) => request.body.data)).toEqual(
      received.map(() =>
        expect.objectContaining({ kind: 'UPDATED', type: 'Whiteboard', rowId: board.rowId, whiteboardId: board.rowId }),
      ),
    );
    expect(received[0].body.type).toBe('whiteboard.updated');
  });

  it("leave out the boards an endpoint does not follow, and the other organizations' changes", async () => {
    const boards = await server.database.prisma.whiteboard.findMany({
      where: { organizationId: board.organizationId },
      orderBy: { id: 'asc' },
      take: 2,
    });
    await endpoint({ whiteboardIds: [boards[1].id] });
    await server.graphql(rename, { rowId: boards[0].id, name: 'Not followed' });
    const other = await server.database.prisma.whiteboard.findFirstOrThrow({
      where: { organizationId: { not: board.organizationId } },
    });
    await server.graphql(rename, { rowId: other.id, name: 'Elsewhere' }, server.keys.admin);
    await server.graphql(rename, { rowId: boards[1].id, name: 'Followed' });
    const [only] = await receiver.waitFor(1);
    expect(only.body.data).toMatchObject({ rowId: boards[1].id, whiteboardId: boards[1].id });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
  });

  it("read every organization's changes after its own cursor in one statement", async () => {
    const other = await server.database.prisma.whiteboard.findFirstOrThrow({
      where: { organizationId: { not: board.organizationId } },
    });
    // A platform administrator reads both organizations.
    const cursorOf = async (organization: number) =>
      (await server.graphql(changes, { organization }, server.keys.platformAdmin)).data!.changes.pageInfo
        .endCursor as string;
    const pages = [
      { organizationId: board.organizationId, after: await cursorOf(board.organizationId) },
      { organizationId: other.organizationId, after: await cursorOf(other.organizationId) },
    ];
    await server.graphql(rename, { rowId: board.rowId, name: 'Read together 1' });
    const renamed = await server.graphql(rename, { rowId: other.id, name: 'Read together 2' }, server.keys.globexOwner);
    expect(renamed.errors).toBeUndefined();
    await server.graphql(rename, { rowId: board.rowId, name: 'Read together 3' });
    let statements = 0;
    const engine = server.database.engine;
    const counted = {
      ...engine,
      queryRows: (sql: string, args: unknown[]) => (statements++, engine.queryRows(sql, args)),
    };
    const read = await logFeed(() => counted).read(pages, 10);
    expect(statements).toBe(1);
    expect(read.map((page) => page.changes.map((change) => [change.organizationId, change.rowId]))).toEqual([
      [
        [board.organizationId, board.rowId],
        [board.organizationId, board.rowId],
      ],
      [[other.organizationId, other.id]],
    ]);
    // Each goes on past its own changes: nothing more to read from there.
    expect(
      (
        await logFeed(() => engine).read(
          read.map((page, i) => ({ ...pages[i], after: page.cursor })),
          10,
        )
      ).map((page) => page.changes),
    ).toEqual([[], []]);
  });
});
