import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const boardsQuery = /* GraphQL */ `
  query Boards($first: Int, $after: String, $filter: WhiteboardFilter, $orderBy: [WhiteboardOrderBy!]) {
    whiteboards(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { cursor node { id rowId name inTheArchive organizationId } }
    }
  }
`;

describe('the read graph', () => {
  it('answers a board with everything on it in one round trip', async () => {
    const { status, data, errors } = await server.graphql(`{
      whiteboards(first: 1, filter: { inTheArchive: { eq: false } }) {
        edges { node {
          name author { email firstName memberships { totalCount edges { node { role organization { name } } } } }
          organization { name rate { code } }
          miniDrawing { file contentType }
          dataStreams { totalCount edges { node { name whiteboard { rowId } slides { edges { node { order name cameraX1 dataStream { name } } } }
            connections { edges { node { order direction objectConnection { shape sourceObject { name } } } } } } } }
          objects { totalCount edges { node { name classConf { name texture { lightThemeImage { file } } attributes { totalCount } }
            instances { edges { node { x y } } } attributes { edges { node { valueStr valueNumber attribute { code type } } } } } } }
        } }
      }
    }`);
    expect(errors).toBeUndefined();
    expect(status).toBe(200);
    const board = data!.whiteboards.edges[0].node;
    expect(board.author.email).toMatch(/@/);
    expect(board.author.memberships.totalCount).toBeGreaterThan(0);
    // The owner's key is Acme's alone.
    expect(board.organization.name).toBe(demo.organizations.acme.name);
    expect(board.dataStreams.totalCount).toBeGreaterThan(0);
    const stream = board.dataStreams.edges[0].node;
    const orders = stream.slides.edges.map((edge: any) => edge.node.order);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(stream.slides.edges[0].node.dataStream.name).toBe(stream.name);
    expect(board.objects.totalCount).toBeGreaterThan(0);
  });

  it('filters, sorts and pages a root connection with a stable cursor', async () => {
    const all = await server.graphql(boardsQuery, { first: 100, orderBy: [{ field: 'name', direction: 'DESC' }] });
    const names = all.data!.whiteboards.edges.map((edge: any) => edge.node.name);
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a)));
    expect(all.data!.whiteboards.totalCount).toBe(names.length);

    const first = await server.graphql(boardsQuery, { first: 2, orderBy: [{ field: 'name', direction: 'DESC' }] });
    expect(first.data!.whiteboards.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(boardsQuery, {
      first: 2,
      after: first.data!.whiteboards.pageInfo.endCursor,
      orderBy: [{ field: 'name', direction: 'DESC' }],
    });
    expect(next.data!.whiteboards.edges.map((edge: any) => edge.node.name)).toEqual(names.slice(2, 4));

    const archived = await server.graphql(boardsQuery, { filter: { inTheArchive: { eq: true } } });
    expect(archived.data!.whiteboards.totalCount).toBeGreaterThan(0);
    expect(archived.data!.whiteboards.edges.every((edge: any) => edge.node.inTheArchive)).toBe(true);

    const either = await server.graphql(boardsQuery, {
      filter: { or: [{ inTheArchive: { eq: true } }, { name: { contains: names[0].slice(1, 5).toUpperCase() } }] },
    });
    expect(either.data!.whiteboards.totalCount).toBeGreaterThan(archived.data!.whiteboards.totalCount - 1);
  });

  it('matches contains and startsWith literally, and keeps eq and ne exact beside them', async () => {
    // The member belongs to both organizations, whose objects' names hold quotes, backslashes and emoji.
    const objects = `query($filter: WhiteboardObjectFilter) { whiteboardObjects(first: 100, filter: $filter) { edges { node { name } } } }`;
    const namesOf = async (filter: object) =>
      (await server.graphql(objects, { filter }, server.keys.member)).data!.whiteboardObjects.edges.map(
        (edge: { node: { name: string } }) => edge.node.name,
      );
    const all: string[] = await namesOf({});
    for (const text of ['\\', '%', '_', 'A1', '🦄']) {
      const expected = all.filter((name) => name.toLowerCase().includes(text.toLowerCase()));
      expect(await namesOf({ name: { contains: text } }), `contains ${text}`).toEqual(expected);
    }
    expect(all.some((name) => name.includes('\\'))).toBe(true);
    expect(await namesOf({ name: { startsWith: '%' } })).toEqual([]);
    expect(await namesOf({ name: { eq: 'rack a1', contains: 'a' } })).toEqual([]);
    expect(await namesOf({ name: { eq: 'Rack A1', contains: 'a' } })).toEqual(['Rack A1']);
    expect(await namesOf({ name: { ne: 'rack a1', contains: 'rack' } })).toEqual(['Rack A1']);
  });

  it('looks rows up by rowId, by node id and by a list of node ids', async () => {
    const { data } = await server.graphql(boardsQuery, { first: 2 });
    const [a, b] = data!.whiteboards.edges.map((edge: any) => edge.node);

    const byRowId = await server.graphql(`query($rowId: Int!) { whiteboard(rowId: $rowId) { id name } }`, {
      rowId: a.rowId,
    });
    expect(byRowId.data!.whiteboard).toEqual({ id: a.id, name: a.name });

    const byNode = await server.graphql(`query($id: ID!) { node(id: $id) { id ... on Whiteboard { rowId } } }`, {
      id: a.id,
    });
    expect(byNode.data!.node).toEqual({ id: a.id, rowId: a.rowId });

    const byNodes = await server.graphql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [b.id, a.id] });
    expect(byNodes.data!.nodes).toEqual([{ id: b.id }, { id: a.id }]);
  });

  it('answers null for ids that match no row', async () => {
    const [missing, variant, unknown] = ['Whiteboard:999999', 'OrganizationInfo:1', 'Nothing:1'].map((id) =>
      Buffer.from(id).toString('base64'),
    );
    const { data, errors } = await server.graphql(
      `query($id: ID!, $ids: [ID!]!) { whiteboard(rowId: 999999) { id } slide(rowId: 999999) { id } node(id: $id) { id } nodes(ids: $ids) { id } }`,
      { id: missing, ids: [variant, unknown] },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ whiteboard: null, slide: null, node: null, nodes: [null, null] });
  });
});

describe('bad input', () => {
  const codeAndField = (response: { errors?: { extensions?: Record<string, unknown> }[] }) =>
    response.errors?.map((error) => [error.extensions?.code, error.extensions?.field]);

  it('refuses a malformed global id', async () => {
    const response = await server.graphql(`{ node(id: "not-a-global-id") { id } }`);
    expect(codeAndField(response)).toEqual([['BAD_USER_INPUT', 'id']]);
  });

  it('refuses a page larger than the cap, on root and nested connections', async () => {
    const root = await server.graphql(`{ whiteboards(first: 101) { totalCount } }`);
    expect(codeAndField(root)).toEqual([['BAD_USER_INPUT', 'first']]);
    expect(root.errors![0].message).toContain('100');
    const nested = await server.graphql(
      `{ whiteboards(first: 1) { edges { node { dataStreams(last: 500) { totalCount } } } } }`,
    );
    expect(codeAndField(nested)).toEqual([['BAD_USER_INPUT', 'last']]);
  });

  it('pages from a cursor of a row of another organization as from a cursor of no row', async () => {
    // Prisma pages from the cursor row's sort values: a foreign row's would tell where it stands.
    const cursor = (id: number) => Buffer.from(`GPC:N:${id}`).toString('base64');
    const pages = `query($after: String!) {
      whiteboards(first: 5, after: $after, orderBy: [{ field: name, direction: DESC }]) { edges { node { rowId } } }
      me { activeOrganization { whiteboards(first: 5, after: $after) { edges { node { rowId } } } } } }`;
    const rowIds = (data: any) => [
      data.whiteboards.edges.map((edge: any) => edge.node.rowId),
      data.me.activeOrganization.whiteboards.edges.map((edge: any) => edge.node.rowId),
    ];
    const none = await server.graphql(pages, { after: cursor(999_999) }, server.keys.globexOwner);
    expect(rowIds(none.data)).toEqual([[], []]);
    // Board 1 is Acme's: to Globex's owner it is no row; to a member of both it is a place to page from.
    const foreign = await server.graphql(pages, { after: cursor(1) }, server.keys.globexOwner);
    expect(rowIds(foreign.data)).toEqual([[], []]);
    const both = await server.graphql(pages, { after: cursor(1) }, server.keys.member);
    expect(rowIds(both.data)[0].length).toBeGreaterThan(0);
  });

  it('refuses a cursor it did not issue', async () => {
    const response = await server.graphql(`{ whiteboards(after: "bm9wZQ==") { totalCount } }`);
    expect(codeAndField(response)).toEqual([['BAD_USER_INPUT', 'after']]);
  });
});
