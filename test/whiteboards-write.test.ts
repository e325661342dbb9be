import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';
import { globalId } from './helpers/graphql.js';

let server: TestServer;
/** Row ids of the demo boards, by name. */
const boards: Record<string, number> = {};
beforeAll(async () => {
  server = await startTestServer();
  for (const board of await server.database.prisma.whiteboard.findMany()) boards[board.name] = board.id;
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const platform = () => boards[demo.whiteboards.platform.name];
const network = () => boards[demo.whiteboards.network.name];
const board = (id: number) => prisma().whiteboard.findUnique({ where: { id } });

const create = `mutation($input: CreateWhiteboardInput!) { createWhiteboard(input: $input) { whiteboard { rowId name authorId organizationId createdAt updatedAt } } }`;
const update = `mutation($input: UpdateWhiteboardInput!) { updateWhiteboard(input: $input) { whiteboard { rowId name description createdAt updatedAt } } }`;
const remove = `mutation($input: DeleteWhiteboardInput!) { deleteWhiteboard(input: $input) { deletedRowId deletedId } }`;
const archive = `mutation($input: WhiteboardArchiveInput!) { archiveWhiteboard(input: $input) { whiteboard { rowId inTheArchive } } }`;
const unarchive = `mutation($input: WhiteboardArchiveInput!) { unarchiveWhiteboard(input: $input) { whiteboard { rowId inTheArchive } } }`;
const clients = `query($rowId: Int!, $first: Int) { whiteboardClients(rowId: $rowId, first: $first) { totalCount edges { node { email isActive } } } }`;
const deleteArchived = `mutation($input: DeleteArchivedWhiteboardsInput) { deleteArchivedWhiteboards(input: $input) { deletedCount deletedRowIds } }`;

async function newBoard(name: string): Promise<number> {
  const response = await server.graphql(create, { input: { name } });
  expect(response.errors).toBeUndefined();
  return response.data!.createWhiteboard.whiteboard.rowId;
}

describe('createWhiteboard and updateWhiteboard', () => {
  it('creates a board in the active organization and moves updatedAt, never createdAt, on update', async () => {
    const created = (await server.graphql(create, { input: { name: '  Roadmap  ' } })).data!.createWhiteboard
      .whiteboard;
    expect(created).toMatchObject({ name: 'Roadmap', organizationId: 1 });
    const updated = await server.graphql(update, { input: { rowId: created.rowId, description: 'Q3' } });
    expect(updated.errors).toBeUndefined();
    expect(updated.data!.updateWhiteboard.whiteboard.createdAt).toBe(created.createdAt);
    expect(Date.parse(updated.data!.updateWhiteboard.whiteboard.updatedAt)).toBeGreaterThan(
      Date.parse(created.updatedAt),
    );
  });

  it("pages its payload's relations as a query does: a cursor row of another board's streams gives an empty page", async () => {
    const [other, own] = [await newBoard('Cursor elsewhere'), await newBoard('Cursor here')];
    const author = (await board(own))!.authorId;
    const stream = (whiteboardId: number, name: string) =>
      prisma().dataStream.create({ data: { name, whiteboardId, authorId: author } });
    // The other board's stream comes first, so a page from its place would hold this board's streams.
    const elsewhere = await stream(other, 'Elsewhere');
    const [first, second] = [await stream(own, 'First'), await stream(own, 'Second')];
    const cursor = (id: number) => Buffer.from(`GPC:N:${id}`).toString('base64');
    const streams = `dataStreams(first: 2, after: $after) { nodes { rowId } }`;
    const renamed = `mutation($input: UpdateWhiteboardInput!, $after: String) { updateWhiteboard(input: $input) { whiteboard { ${streams} } } }`;
    const read = `query($rowId: Int!, $after: String) { whiteboard(rowId: $rowId) { ${streams} } }`;
    for (const [after, rows] of [
      [elsewhere.id, []],
      [first.id, [{ rowId: second.id }]],
    ] as const) {
      const payload = await server.graphql(renamed, {
        input: { rowId: own, name: 'Cursor here' },
        after: cursor(after),
      });
      expect(payload.data!.updateWhiteboard.whiteboard.dataStreams.nodes).toEqual(rows);
      const query = await server.graphql(read, { rowId: own, after: cursor(after) });
      expect(query.data!.whiteboard.dataStreams.nodes).toEqual(rows);
    }
  });

  it('refuses to create a board in an organization the caller does not belong to', async () => {
    const response = await expectNothingChanged(server, () =>
      server.graphql(create, { input: { name: 'Intrusion', organizationId: 2 } }),
    );
    expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.organizationId' });
  });

  it('refuses an empty name, naming the field, and changes nothing', async () => {
    const response = await expectNothingChanged(
      server,
      () => server.graphql(update, { input: { rowId: platform(), name: ' ' } }),
      () => board(platform()),
    );
    expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
  });
});

describe('deleteWhiteboard', () => {
  it('deletes a board with everything on it, by row id or global id', async () => {
    const first = await newBoard('Scratch 1');
    await prisma().dataStream.create({ data: { name: 'flow', whiteboardId: first, authorId: 1 } });
    const byRowId = await server.graphql(remove, { input: { rowId: first } });
    expect(byRowId.data!.deleteWhiteboard).toEqual({ deletedRowId: first, deletedId: globalId('Whiteboard', first) });
    expect(await board(first)).toBeNull();
    expect(await prisma().dataStream.count({ where: { whiteboardId: first } })).toBe(0);

    const second = await newBoard('Scratch 2');
    const byId = await server.graphql(remove, { input: { id: globalId('Whiteboard', second) } }, server.keys.admin);
    expect(byId.data!.deleteWhiteboard.deletedRowId).toBe(second);
    expect(await prisma().userActionLog.findFirst({ orderBy: { id: 'desc' } })).toMatchObject({
      method: 'DELETE',
      entityType: 'Whiteboard',
      entityId: second,
    });
  });

  it('refuses a target that is not exactly one board id', async () => {
    expect(failure(await server.graphql(remove, { input: {} }))).toEqual({ code: 'BAD_USER_INPUT', field: 'input.id' });
    expect(failure(await server.graphql(remove, { input: { id: globalId('Slide', 1) } }))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.id',
    });
  });

  it('answers NOT_FOUND for an unknown board and for a board of another organization', async () => {
    expect(failure(await server.graphql(remove, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const response = await expectNothingChanged(server, () => server.graphql(remove, { input: { rowId: network() } }));
    expect(failure(response).code).toBe('NOT_FOUND');
  });

  it('is refused to a member (the matrix keeps deleting to owners and admins) and to a read-only key', async () => {
    const member = await expectNothingChanged(server, () =>
      server.graphql(remove, { input: { rowId: platform() } }, server.keys.member),
    );
    expect(failure(member).code).toBe('FORBIDDEN');
    const viewer = await expectNothingChanged(server, () =>
      server.graphql(remove, { input: { rowId: platform() } }, server.keys.viewer),
    );
    expect(failure(viewer).code).toBe('FORBIDDEN');
  });
});

describe('archiveWhiteboard and unarchiveWhiteboard', () => {
  it('moves a board into the archive and back, by global id or row id', async () => {
    const id = await newBoard('To archive');
    const archived = await server.graphql(archive, { input: { id: globalId('Whiteboard', id) } }, server.keys.member);
    expect(archived.data!.archiveWhiteboard.whiteboard).toEqual({ rowId: id, inTheArchive: true });
    const restored = await server.graphql(unarchive, { input: { rowId: id } });
    expect(restored.data!.unarchiveWhiteboard.whiteboard).toEqual({ rowId: id, inTheArchive: false });
  });

  it('refuses both or neither of id and rowId, an unknown board, and a read-only key, changing nothing', async () => {
    const both = await expectNothingChanged(
      server,
      () => server.graphql(archive, { input: { id: globalId('Whiteboard', platform()), rowId: platform() } }),
      () => board(platform()),
    );
    expect(failure(both)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.id' });
    expect(failure(await server.graphql(archive, { input: {} }))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.id',
    });
    expect(failure(await server.graphql(unarchive, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const viewer = await expectNothingChanged(
      server,
      () => server.graphql(archive, { input: { rowId: platform() } }, server.keys.viewer),
      () => board(platform()),
    );
    expect(failure(viewer).code).toBe('FORBIDDEN');
  });

  it('is refused to a viewer even with a read-write key', async () => {
    const key = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
    const response = await expectNothingChanged(
      server,
      () => server.graphql(archive, { input: { rowId: platform() } }, key),
      () => board(platform()),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
  });
});

describe('whiteboardClients', () => {
  const activeMembersOf = (organization: 'acme' | 'globex') =>
    Object.values(demo.users)
      .filter((user) => user.isActive && organization in user.roles)
      .map((user) => user.email);

  it("lists the active members of the board's organization, whatever their role", async () => {
    const response = await server.graphql(clients, { rowId: platform() }, server.keys.viewer);
    expect(response.errors).toBeUndefined();
    const emails = response.data!.whiteboardClients.edges.map((edge: any) => edge.node.email);
    expect(emails.sort()).toEqual(activeMembersOf('acme').sort());
    expect(response.data!.whiteboardClients.totalCount).toBe(activeMembersOf('acme').length);
  });

  it('leaves out inactive users, and pages', async () => {
    const response = await server.graphql(clients, { rowId: network(), first: 1 }, server.keys.member);
    expect(response.data!.whiteboardClients.totalCount).toBe(activeMembersOf('globex').length);
    expect(response.data!.whiteboardClients.edges).toHaveLength(1);
    const all = await server.graphql(clients, { rowId: network() }, server.keys.member);
    expect(all.data!.whiteboardClients.edges.map((edge: any) => edge.node.email)).not.toContain(
      demo.users.inactive.email,
    );
  });

  it('answers NOT_FOUND for an unknown board and for a board of another organization, and refuses a page too large', async () => {
    expect(failure(await server.graphql(clients, { rowId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(clients, { rowId: network() })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(clients, { rowId: platform(), first: 1000 }))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
  });

  it('reads the page in a constant number of statements', async () => {
    const { statements } = await server.countStatements(() => server.graphql(clients, { rowId: platform() }));
    expect(ofTheRequest(statements).length).toBeLessThanOrEqual(6);
  });
});

describe('deleteArchivedWhiteboards', () => {
  const archivedOf = (organizationId: number) =>
    prisma().whiteboard.findMany({ where: { organizationId, inTheArchive: true }, select: { id: true } });

  it('is refused to a member and to a read-only key, changing nothing', async () => {
    for (const key of [server.keys.member, server.keys.viewer]) {
      const response = await expectNothingChanged(
        server,
        () => server.graphql(deleteArchived, {}, key),
        () => archivedOf(1),
      );
      expect(failure(response).code).toBe('FORBIDDEN');
    }
  });

  it('refuses an unknown organization, or another one, with NOT_FOUND', async () => {
    expect(failure(await server.graphql(deleteArchived, { input: { organizationId: 999_999 } })).code).toBe(
      'NOT_FOUND',
    );
    const other = await expectNothingChanged(
      server,
      () => server.graphql(deleteArchived, { input: { organizationId: 2 } }),
      () => archivedOf(2),
    );
    expect(failure(other).code).toBe('NOT_FOUND');
  });

  it('refuses a caller without an active organization who names none', async () => {
    const key = await keyFor(server, demo.users.platformAdmin.email, 'ADMIN');
    expect(failure(await server.graphql(deleteArchived, {}, key))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.organizationId',
    });
  });

  it('deletes every archived board of the active organization and no other board, with a log entry each', async () => {
    const extra = await newBoard('Old sketch');
    await server.graphql(archive, { input: { rowId: extra } });
    const expected = (await archivedOf(1)).map((row) => row.id);
    expect(expected.length).toBe(2);
    const globexArchived = await archivedOf(2);
    const boardsBefore = await prisma().whiteboard.count();
    const logBefore = await prisma().userActionLog.count();

    const response = await server.graphql(deleteArchived, {}, server.keys.admin);
    expect(response.errors).toBeUndefined();
    expect(response.data!.deleteArchivedWhiteboards).toEqual({ deletedCount: 2, deletedRowIds: expected });
    expect(await archivedOf(1)).toEqual([]);
    expect(await archivedOf(2)).toEqual(globexArchived);
    expect(await prisma().whiteboard.count()).toBe(boardsBefore - 2);
    expect(await prisma().userActionLog.count()).toBe(logBefore + 2);

    const again = await server.graphql(deleteArchived, { input: { organizationId: 1 } });
    expect(again.data!.deleteArchivedWhiteboards).toEqual({ deletedCount: 0, deletedRowIds: [] });
  });
});
