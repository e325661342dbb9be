import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../src/live/positions.js';
import { MAX_UNREAD_ITEMS } from '../src/live/queue.js';
import { firstBoard, type DemoBoard } from './helpers/demo-ids.js';
import { boardUpdatesSql, subscribeSse, subscribeWs, until, type Subscription } from './helpers/live.js';
import { startTestServer, type TestServer } from './helpers/server.js';

// A client resumes where it left off: each event's cursor (SSE `id:`, `extensions.cursor`, the
// `cursor` field), `Last-Event-ID`, `after:` and the `changes` pages all continue from the same place.

let server: TestServer;
let board: DemoBoard;

const boardEvents = `subscription($id: Int!, $after: String) { whiteboardEvents(whiteboardId: $id, after: $after) {
  ... on LiveEvent { kind cursor } ... on NodeChangedEvent { node { ... on Whiteboard { name } } }
} }`;
const organizationEvents = `subscription($id: Int!, $after: String) { organizationWhiteboardEvents(organizationId: $id, after: $after) {
  ... on LiveEvent { kind rowId cursor }
} }`;
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { name } } }`;
const changes = `query($board: Int, $organization: Int, $after: String, $first: Int) {
  changes(whiteboardId: $board, organizationId: $organization, after: $after, first: $first) {
    edges { cursor node { ... on LiveEvent { kind type rowId } ... on NodeChangedEvent { node { ... on Whiteboard { name } } } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

beforeAll(async () => {
  server = await startTestServer({ LIVE_POLL_MS: '20' });
  board = await firstBoard(server);
});
afterEach(() => until(() => server.gateway.live.size === 0));
afterAll(() => server?.close());

let renames = 0;
/** Renames the board `count` times; answers the names, in order. */
async function renamed(count: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `Resumed ${++renames}`;
    const result = await server.graphql(rename, { rowId: board.rowId, name });
    expect(result.errors).toBeUndefined();
    names.push(name);
  }
  return names;
}

/** The next `count` results' names, and their cursors. */
async function namesOf(subscription: Subscription, count: number) {
  const results = [];
  for (let i = 0; i < count; i++) results.push(await subscription.next(5_000));
  const events = results.map((result) => result.data.whiteboardEvents);
  return { names: events.map((event) => event.node.name), cursors: events.map((event) => event.cursor as string) };
}

/** The cursors of the changes of the board after `after`, as a page of `changes` tells them. */
async function cursorsAfter(after: string): Promise<string[]> {
  const page = await server.graphql(changes, { board: board.rowId, after, first: 1000 });
  return page.data!.changes.edges.map((edge: { cursor: string }) => edge.cursor);
}

/** Whether `subscription` has nothing more after a write's round trip: the next result is the marker rename's. */
async function expectNothingBefore(subscription: Subscription) {
  const [marker] = await renamed(1);
  expect((await namesOf(subscription, 1)).names).toEqual([marker]);
}

describe('resuming a subscription', () => {
  it('over SSE: each event carries its cursor as `id:`, and Last-Event-ID continues after it, each change once', async () => {
    const first = await subscribeSse(server.url, server.keys.viewer, boardEvents, { id: board.rowId });
    const before = await renamed(2);
    const seen = await namesOf(first, 2);
    // Each node is read when its event is told: both may already read the second name.
    expect(seen.names.at(-1)).toBe(before.at(-1));
    expect(first.ids).toEqual(seen.cursors);
    first.close();
    await renamed(3);
    const resumed = await subscribeSse(
      server.url,
      server.keys.viewer,
      boardEvents,
      { id: board.rowId },
      { 'last-event-id': first.ids[1] },
    );
    // Each node is read as it is when told: the missed renames all read the last name.
    const missed = await namesOf(resumed, 3);
    expect(missed.cursors).toEqual(await cursorsAfter(first.ids[1]));
    expect(resumed.ids).toEqual(missed.cursors);
    await expectNothingBefore(resumed);
    resumed.close();
  });

  it('over graphql-ws: `after` continues after the cursor, on the board and on the organization', async () => {
    const first = subscribeWs(server.url, server.keys.viewer, boardEvents, { id: board.rowId });
    const organization = subscribeWs(server.url, server.keys.viewer, organizationEvents, { id: board.organizationId });
    await until(() => server.gateway.live.size === 2);
    await renamed(1);
    const { cursors } = await namesOf(first, 1);
    const fromOrganization = (await organization.next(5_000)).data.organizationWhiteboardEvents;
    // One change, one cursor, whichever stream told it.
    expect(fromOrganization.cursor).toBe(cursors[0]);
    first.close();
    organization.close();
    await renamed(2);
    const resumed = subscribeWs(server.url, server.keys.viewer, boardEvents, { id: board.rowId, after: cursors[0] });
    const missed = await cursorsAfter(cursors[0]);
    expect(missed).toHaveLength(2);
    expect((await namesOf(resumed, 2)).cursors).toEqual(missed);
    const organizationResumed = subscribeWs(server.url, server.keys.viewer, organizationEvents, {
      id: board.organizationId,
      after: cursors[0],
    });
    const told = [await organizationResumed.next(5_000), await organizationResumed.next(5_000)];
    expect(told.map((result) => result.data.organizationWhiteboardEvents.cursor)).toEqual(missed);
    await expectNothingBefore(resumed);
    resumed.close();
    organizationResumed.close();
  });

  it('reads a long absence a page at a time as the client reads, never SUBSCRIBER_TOO_SLOW', async () => {
    const first = subscribeWs(server.url, server.keys.viewer, boardEvents, { id: board.rowId });
    await until(() => server.gateway.live.size === 1);
    await renamed(1);
    const { cursors } = await namesOf(first, 1);
    first.close();
    // More changes than a stream leaves unread before it ends a slow subscriber, committed at once.
    const away = MAX_UNREAD_ITEMS + 500;
    await server.database.prisma.$executeRawUnsafe(boardUpdatesSql, board.organizationId, board.rowId, away);
    // Resumed once this instance has read past them: they come from the log, not as one live burst
    // (a burst past the unread bound ends a stream, SUBSCRIBER_TOO_SLOW, and the client resumes).
    const [[written]] = await server.database.engine.queryRows('SELECT max(xid)::text FROM user_action_log', []);
    await until(() => BigInt(server.gateway.live.reached?.horizon ?? 0) > BigInt(written as string), 5_000);
    const cursorsOnly = `subscription($id: Int!, $after: String) { whiteboardEvents(whiteboardId: $id, after: $after) { ... on LiveEvent { cursor } } }`;
    const resumed = subscribeWs(server.url, server.keys.viewer, cursorsOnly, { id: board.rowId, after: cursors[0] });
    const told = new Set<string>();
    for (let i = 0; i < away; i++) {
      const result = await resumed.next(10_000);
      expect(result.errors).toBeUndefined();
      told.add(result.data.whiteboardEvents.cursor);
    }
    expect(told.size).toBe(away);
    await renamed(1);
    expect((await resumed.next(5_000)).data.whiteboardEvents.cursor).toBe((await cursorsAfter([...told].at(-1)!))[0]);
    resumed.close();
  }, 60_000);
});

describe('the changes connection', () => {
  it('pages the changes of a board in commit order with the cursors the streams give, and keeps its place', async () => {
    // Where the board's log ends now: its last page's endCursor.
    let start: string | undefined;
    for (let more = true; more; ) {
      const page = (await server.graphql(changes, { board: board.rowId, after: start, first: 1000 })).data!.changes;
      start = page.pageInfo.endCursor;
      more = page.pageInfo.hasNextPage;
    }
    const subscription = subscribeWs(server.url, server.keys.viewer, boardEvents, { id: board.rowId });
    await until(() => server.gateway.live.size === 1);
    const names = await renamed(5);
    const streamed = await namesOf(subscription, 5);
    subscription.close();
    const pages = [];
    let after = start!;
    for (;;) {
      const page = (await server.graphql(changes, { board: board.rowId, after, first: 2 }, server.keys.viewer)).data!
        .changes;
      pages.push(page);
      after = page.pageInfo.endCursor;
      if (!page.pageInfo.hasNextPage) break;
    }
    const edges = pages.flatMap((page) => page.edges);
    // Each node is read as it is now: every rename reads the last name.
    expect(edges.map((edge: any) => edge.node.node.name)).toEqual(names.map(() => names[names.length - 1]));
    expect(edges.map((edge: any) => edge.cursor)).toEqual(streamed.cursors);
    expect(pages.map((page) => page.edges.length)).toEqual([2, 2, 1]);
    // Caught up: the last cursor reads nothing; its endCursor (past every transaction ended since,
    // which on PostgreSQL may be more than before) reads the next change, and only it.
    const caughtUp = (await server.graphql(changes, { board: board.rowId, after })).data!.changes;
    expect(caughtUp).toMatchObject({ edges: [], pageInfo: { hasNextPage: false } });
    await renamed(1);
    const next = (await server.graphql(changes, { board: board.rowId, after: caughtUp.pageInfo.endCursor })).data!
      .changes;
    expect(next.edges).toHaveLength(1);
    expect(next.edges[0].node).toMatchObject({ kind: 'UPDATED', type: 'Whiteboard', rowId: board.rowId });
  });

  it('answers an organization the caller is not in, or a board, as not found; and refuses bad arguments by name', async () => {
    const outsider = await server.graphql(changes, { organization: board.organizationId }, server.keys.globexOwner);
    expect(outsider.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const both = await server.graphql(changes, { board: board.rowId, organization: board.organizationId });
    expect(both.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'organizationId' });
    const tooMany = await server.graphql(changes, { board: board.rowId, first: 1001 });
    expect(tooMany.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
    const garbled = await server.graphql(changes, { board: board.rowId, after: 'not-a-cursor' });
    expect(garbled.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const subscription = subscribeWs(server.url, server.keys.viewer, boardEvents, {
      id: board.rowId,
      after: 'not-a-cursor',
    });
    expect((await subscription.next()).errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'after',
    });
    subscription.close();
  });
});

describe('a cursor the log cannot continue from', () => {
  const [[identity]] = [['00000000-0000-4000-8000-000000000000']];

  it('of another database: CURSOR_EXPIRED once, with the cursor of now, and the stream goes on', async () => {
    const foreign = encodeCursor({ identity, xid: '1', id: 1 });
    const page = await server.graphql(changes, { board: board.rowId, after: foreign });
    expect(page.errors?.[0].extensions).toMatchObject({ code: 'CURSOR_EXPIRED', cursor: expect.any(String) });
    const now = page.errors![0].extensions!.cursor as string;
    expect((await server.graphql(changes, { board: board.rowId, after: now })).data!.changes.edges).toEqual([]);
    const stream = await subscribeSse(server.url, server.keys.viewer, boardEvents, { id: board.rowId, after: foreign });
    expect((await stream.next(5_000)).errors?.[0].extensions?.code).toBe('CURSOR_EXPIRED');
    await expectNothingBefore(stream);
    stream.close();
  });

  it('older than retention: CURSOR_EXPIRED, never a silent gap', async () => {
    const { engine } = server.database;
    await renamed(1);
    const [{ cursor }] = (await server.graphql(changes, { board: board.rowId, first: 1 })).data!.changes.edges.map(
      (edge: any) => edge,
    );
    const [[xid]] = await engine.queryRows('SELECT max(xid)::text FROM user_action_log', []);
    await engine.queryRows('UPDATE change_log_state SET pruned_xid = $1::bigint', [xid]);
    try {
      const page = await server.graphql(changes, { board: board.rowId, after: cursor });
      expect(page.errors?.[0]).toMatchObject({
        message: expect.stringContaining('CHANGE_LOG_RETENTION_DAYS'),
        extensions: { code: 'CURSOR_EXPIRED' },
      });
    } finally {
      await engine.queryRows('UPDATE change_log_state SET pruned_xid = 0', []);
    }
  });
});

describe('the log as an audit trail', () => {
  it("keeps a deleted user's entries, and deletes an organization's with it", async () => {
    const { prisma } = server.database;
    const created = await server.graphql(
      'mutation { createOrganization(input: { name: "Short-lived" }) { organization { rowId } } }',
      {},
      server.keys.admin,
    );
    const organizationId = created.data!.createOrganization.organization.rowId;
    await prisma.userActionLog.create({
      data: { userId: 987_654, organizationId, method: 'UPDATE', entityType: 'Whiteboard', entityId: 1 },
    });
    expect(await prisma.userActionLog.count({ where: { organizationId } })).toBeGreaterThan(0);
    // An entry of a user that no longer exists: kept, its user read as null.
    const [entry] = await prisma.userActionLog.findMany({ where: { userId: 987_654 } });
    const read = await server.graphql(
      'query($id: Int!) { actionLog(rowId: $id) { userId user { rowId } } }',
      { id: entry.id },
      server.keys.admin,
    );
    expect(read.data!.actionLog).toEqual({ userId: 987_654, user: null });
    const deleted = await server.graphql(
      'mutation($id: Int!) { deleteOrganization(input: { rowId: $id, confirmName: "Short-lived" }) { deletedRowId } }',
      { id: organizationId },
      server.keys.admin,
    );
    expect(deleted.errors).toBeUndefined();
    expect(await prisma.userActionLog.count({ where: { organizationId } })).toBe(0);
  });
});

describe('a reconnect storm', () => {
  it('opens the subscriptions one key sends while the database is busy with at most two reads of their boards, and tells each of the next change', async () => {
    const count = 20;
    const opened = await server.countStatements(async () => {
      // The boards are locked a while (by a migration, say): the lookups wait together.
      const busy = server.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`LOCK TABLE whiteboard IN ACCESS EXCLUSIVE MODE`;
        await sleep(300);
      });
      const subscriptions = await Promise.all(
        Array.from({ length: count }, () =>
          subscribeSse(server.url, server.keys.member, boardEvents, { id: board.rowId }),
        ),
      );
      await busy;
      return subscriptions;
    });
    // At most the first lookup, sent at once, and all the others, sent together once it is answered.
    const boardReads = opened.statements.filter((sql) => /^SELECT\b.*FROM "public"\."whiteboard"/.test(sql));
    expect(boardReads.length).toBeLessThanOrEqual(2);
    const [name] = await renamed(1);
    for (const subscription of opened.result) {
      expect((await namesOf(subscription, 1)).names).toEqual([name]);
      subscription.close();
    }
  });
});
