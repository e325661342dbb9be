import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveHub } from '../src/live/hub.js';
import { firstBoard, type DemoBoard } from './helpers/demo-ids.js';
import { boardUpdatesSql, subscribeSse, subscribeWs, until } from './helpers/live.js';
import { rest } from './helpers/rest.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let board: DemoBoard;

const boardEvents = `subscription($id: Int!) { whiteboardEvents(whiteboardId: $id) {
  __typename ... on LiveEvent { kind type rowId whiteboardId }
  ... on NodeChangedEvent { node { id ... on Whiteboard { name } ... on Slide { name } } }
  ... on NodeDeletedEvent { deletedId }
} }`;
const organizationEvents = `subscription($id: Int!) { organizationWhiteboardEvents(organizationId: $id) {
  __typename ... on LiveEvent { kind type rowId } ... on WhiteboardArchiveEvent { node { ... on Whiteboard { inTheArchive } } }
} }`;
const rename = `mutation($rowId: Int!, $name: String!) { updateWhiteboard(input: { rowId: $rowId, name: $name }) { whiteboard { name } } }`;

beforeAll(async () => {
  // Reads on a timer once a minute: every event below arrives because this instance's own write woke its hub.
  server = await startTestServer({ MAX_SUBSCRIPTIONS_PER_KEY: '3', LIVE_POLL_MS: '60000' });
  board = await firstBoard(server);
});
// Each test starts with no subscription open, so it can wait for its own to stand.
afterEach(() => until(() => server.gateway.live.size === 0));
afterAll(() => server?.close());

describe('subscriptions', () => {
  it('tells a Server-Sent Events subscriber of a GraphQL mutation and of a REST write, with the node', async () => {
    const events = await subscribeSse(server.url, server.keys.viewer, boardEvents, { id: board.rowId });
    expect(events.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await server.graphql(rename, { rowId: board.rowId, name: 'Renamed by GraphQL' });
    expect((await events.next()).data.whiteboardEvents).toMatchObject({
      __typename: 'NodeChangedEvent',
      kind: 'UPDATED',
      type: 'Whiteboard',
      rowId: board.rowId,
      node: { name: 'Renamed by GraphQL' },
    });
    const put = await rest(server, 'PUT', `/api/whiteboard/v1/${board.rowId}/`, { json: { name: 'Renamed by REST' } });
    expect(put.status).toBe(200);
    expect((await events.next()).data.whiteboardEvents).toMatchObject({
      kind: 'UPDATED',
      node: { name: 'Renamed by REST' },
    });
    events.close();
  });

  it('tells a graphql-ws subscriber of changes on the board: created, deleted, reordered', async () => {
    const events = subscribeWs(server.url, server.keys.member, boardEvents, { id: board.rowId });
    await until(() => server.gateway.live.size === 1);
    const stream = (
      await server.graphql(
        `mutation($id: Int!) { createDataStream(input: { whiteboardId: $id, name: "Live" }) { dataStream { rowId } } }`,
        { id: board.rowId },
      )
    ).data!.createDataStream.dataStream;
    expect((await events.next()).data.whiteboardEvents).toMatchObject({
      kind: 'CREATED',
      type: 'DataStream',
      rowId: stream.rowId,
      whiteboardId: board.rowId,
    });
    const slide = (
      await server.graphql(
        `mutation($id: Int!) { createSlide(input: { dataStreamId: $id, name: "One" }) { slide { rowId } } }`,
        { id: stream.rowId },
      )
    ).data!.createSlide.slide;
    expect((await events.next()).data.whiteboardEvents).toMatchObject({
      kind: 'CREATED',
      type: 'Slide',
      node: { name: 'One' },
    });
    await server.graphql(`mutation($input: ReorderSlidesInput!) { reorderSlides(input: $input) { rowId } }`, {
      input: { dataStreamId: stream.rowId, ids: [slide.rowId] },
    });
    expect((await events.next()).data.whiteboardEvents).toMatchObject({
      __typename: 'ChildrenReorderedEvent',
      kind: 'REORDERED',
      type: 'DataStream',
    });
    await server.graphql(`mutation($id: Int!) { deleteSlide(input: { rowId: $id }) { deletedRowId } }`, {
      id: slide.rowId,
    });
    expect((await events.next()).data.whiteboardEvents).toMatchObject({
      __typename: 'NodeDeletedEvent',
      type: 'Slide',
      rowId: slide.rowId,
      whiteboardId: board.rowId,
    });
    events.close();
  });

  it("tells an organization's subscribers of boards created, archived and deleted", async () => {
    const events = await subscribeSse(server.url, server.keys.owner, organizationEvents, { id: board.organizationId });
    const created = (
      await server.graphql(
        `mutation($org: Int!) { createWhiteboard(input: { organizationId: $org, name: "Fresh" }) { whiteboard { rowId } } }`,
        { org: board.organizationId },
      )
    ).data!.createWhiteboard.whiteboard;
    expect((await events.next()).data.organizationWhiteboardEvents).toMatchObject({
      kind: 'CREATED',
      rowId: created.rowId,
    });
    await server.graphql(`mutation($id: Int!) { archiveWhiteboard(input: { rowId: $id }) { whiteboard { rowId } } }`, {
      id: created.rowId,
    });
    expect((await events.next()).data.organizationWhiteboardEvents).toMatchObject({
      __typename: 'WhiteboardArchiveEvent',
      kind: 'ARCHIVED',
      node: { inTheArchive: true },
    });
    await server.graphql(`mutation($id: Int!) { deleteWhiteboard(input: { rowId: $id }) { deletedRowId } }`, {
      id: created.rowId,
    });
    expect((await events.next()).data.organizationWhiteboardEvents).toMatchObject({
      __typename: 'NodeDeletedEvent',
      rowId: created.rowId,
    });
    events.close();
  });

  it('sends nothing for a transaction that rolls back, and only after commit for one that commits', async () => {
    const hub = new LiveHub(() => server.database.engine, 1, 5, 0);
    const heard: number[] = [];
    await hub.start();
    hub.onEvent((event) => heard.push(event.rowId));
    const prisma = server.database.prisma;
    const write = (tx: typeof prisma | Parameters<Parameters<typeof prisma.$transaction>[0]>[0], rowId: number) =>
      tx.$executeRawUnsafe(boardUpdatesSql, null, rowId, 1);
    await expect(
      prisma.$transaction(async (tx) => {
        await write(tx, 1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await prisma.$transaction(async (tx) => {
      await write(tx, 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual([]);
    });
    await until(() => heard.length > 0);
    hub.stop();
    expect(heard).toEqual([2]);
  });

  it('refuses a board the key cannot read, and a key past its subscription limit', async () => {
    const other = await subscribeSse(server.url, server.keys.viewer, boardEvents, { id: 999_999 });
    expect((await other.next()).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const open = await Promise.all(
      [1, 2, 3].map(() => subscribeSse(server.url, server.keys.admin, boardEvents, { id: board.rowId })),
    );
    const refused = await subscribeSse(server.url, server.keys.admin, boardEvents, { id: board.rowId });
    expect((await refused.next()).errors?.[0].extensions?.code).toBe('TOO_MANY_SUBSCRIPTIONS');
    open[0].close();
    await until(() => server.gateway.live.size === 2);
    const again = await subscribeSse(server.url, server.keys.admin, boardEvents, { id: board.rowId });
    await server.graphql(rename, { rowId: board.rowId, name: 'Once more' });
    expect((await again.next()).data.whiteboardEvents.kind).toBe('UPDATED');
    for (const subscription of [...open, again]) subscription.close();
  });

  it('refuses a WebSocket connection without a valid key, closing it with 4403 and a reason that says why', async () => {
    for (const key of ['not-a-key', '']) {
      const events = subscribeWs(server.url, key, boardEvents, { id: board.rowId });
      expect((await events.next()).errors?.[0].message).toMatch(
        /^4403 Forbidden: the API key .* is missing, unknown, revoked or expired$/,
      );
      await events.ended;
    }
  });

  it("ends a revoked key's stream within a second with a final error", async () => {
    const created = (
      await server.graphql(
        `mutation { createApiKey(input: { name: "live", permission: READ_ONLY }) { secret apiKey { id } } }`,
      )
    ).data!.createApiKey;
    const events = subscribeWs(server.url, created.secret, boardEvents, { id: board.rowId });
    await until(() => server.gateway.live.size === 1);
    const revokedAt = Date.now();
    await server.graphql(`mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { revokedAt } } }`, {
      id: created.apiKey.id,
    });
    expect((await events.next(1_000)).errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    await events.ended;
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });

  it("ends an expiring key's stream within a second of its expiry, with no event to carry the news", async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const created = (
      await server.graphql(
        `mutation($at: DateTime!) { createApiKey(input: { name: "brief", permission: READ_ONLY, expiresAt: $at }) { secret } }`,
        { at: expiresAt.toISOString() },
      )
    ).data!.createApiKey;
    const events = await subscribeSse(server.url, created.secret, boardEvents, { id: board.rowId });
    const last = await events.next(3_000);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime());
    expect(Date.now() - expiresAt.getTime()).toBeLessThan(1_000);
    expect(last.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/expired/),
      extensions: { code: 'UNAUTHENTICATED' },
    });
    await events.ended;
  });

  it('ends the stream of a member removed from the organization with FORBIDDEN', async () => {
    const viewer = (await server.graphql('{ me { rowId } }', {}, server.keys.viewer)).data!.me;
    const membership = await server.database.prisma.userOrganization.findFirstOrThrow({
      where: { userId: viewer.rowId, organizationId: board.organizationId },
    });
    const events = await subscribeSse(server.url, server.keys.viewer, boardEvents, { id: board.rowId });
    const removed = await server.graphql(
      `mutation($id: Int!) { removeMember(input: { rowId: $id }) { deletedRowId } }`,
      { id: membership.id },
    );
    expect(removed.errors).toBeUndefined();
    expect((await events.next(1_000)).errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    await events.ended;
  });
});
