import { getNamedType, isEnumType, isObjectType, isScalarType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { schema } from '../src/schema/index.js';
import { rest } from './helpers/rest.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';
import { globalId } from './helpers/graphql.js';

// The same gateway twice over one database: with read plans (the server) and without (the executor).
let server: TestServer;
let executor: ReturnType<typeof createApp>;
beforeAll(async () => {
  server = await startTestServer();
  executor = createApp({ schema, config: { ...loadConfig({}), readPlans: false } });
});
afterAll(async () => {
  await executor?.close();
  await server?.close();
});

async function executed(query: string, variables: Record<string, unknown>, key: string) {
  const response = await executor.request('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, ...((await response.json()) as object) };
}

/** Sends the operation both ways and expects the same answer; returns the statements of the planned one. */
async function sameBothWays(
  query: string,
  variables: Record<string, unknown> = {},
  key = server.keys.owner,
): Promise<string[]> {
  await server.graphql('{ __typename }', {}, key);
  const { result, statements } = await server.countStatements(() => server.graphql(query, variables, key));
  expect(result.errors).toBeUndefined();
  expect(result).toEqual(await executed(query, variables, key));
  return ofTheRequest(statements);
}

const rootLists = Object.values(schema.getQueryType()!.getFields()).filter(
  (field) => (field.extensions.readPlan as { root?: string })?.root === 'list',
);

/** Every column of a node type, its global id and its type name. */
function columnsOf(type: GraphQLObjectType): string {
  const scalars = Object.values(type.getFields()).filter(
    (field) => !field.args.length && (isScalarType(getNamedType(field.type)) || isEnumType(getNamedType(field.type))),
  );
  return `__typename ${scalars.map((field) => field.name).join(' ')}`;
}

const fieldType = (type: GraphQLObjectType, name: string) =>
  getNamedType(type.getFields()[name].type) as GraphQLObjectType;
const nodeOf = (connection: GraphQLObjectType) => fieldType(fieldType(connection, 'edges'), 'node');

describe('read plans answer as the executor does', () => {
  it.each(rootLists.map((field) => [field.name, field] as const))(
    '%s: every column, in one statement',
    async (_name, field) => {
      const node = nodeOf(getNamedType(field.type) as GraphQLObjectType);
      const query = `{ ${field.name}(first: 100) { __typename totalCount edges { __typename cursor node { ${columnsOf(node)} } } } }`;
      expect(await sameBothWays(query)).toHaveLength(1);
    },
  );

  it.each(rootLists.map((field) => [field.name, field] as const))(
    '%s: each relation one level down',
    async (_name, field) => {
      const node = nodeOf(getNamedType(field.type) as GraphQLObjectType);
      const relations = Object.values(node.getFields()).filter((inner) => isObjectType(getNamedType(inner.type)));
      for (const relation of relations) {
        const type = getNamedType(relation.type) as GraphQLObjectType;
        const inner = type.getFields().edges
          ? `{ totalCount edges { cursor node { ${columnsOf(nodeOf(type))} } } }`
          : `{ ${columnsOf(type)} }`;
        await sameBothWays(`{ ${field.name}(first: 5) { edges { node { rowId ${relation.name} ${inner} } } } }`);
      }
    },
  );

  it('the nested board read, with filter, order, offset, fragments, aliases and directives, for every demo key', async () => {
    const query = /* GraphQL */ `
      query Boards($first: Int!, $archived: Boolean!, $withSlides: Boolean!) {
        whiteboards(first: $first, offset: 1, filter: { or: [{ inTheArchive: { eq: $archived } }, { name: { in: ["x"] } }] }, orderBy: [{ field: name, direction: DESC }]) {
          count: totalCount
          edges { node { ...Board dataStreams(first: 2) { edges { node { name slides @include(if: $withSlides) { totalCount edges { node { order name cameraX1 } } } } } } } }
        }
        one: whiteboard(rowId: 1) { ...Board }
        none: whiteboard(rowId: 999999) { rowId }
      }
      fragment Board on Whiteboard { id rowId title: name updatedAt author { email } organization { name } miniDrawing { file } }
    `;
    for (const key of Object.values(server.keys)) {
      expect(await sameBothWays(query, { first: 10, archived: false, withSlides: true }, key)).toHaveLength(1);
      await sameBothWays(query, { first: 3, archived: true, withSlides: false }, key);
    }
  });

  it("shows no user's active organization the caller is not in, nor its boards, files or invites", async () => {
    // Mia's active organization is Acme; Globex's owner is in Globex only.
    const query = /* GraphQL */ `
      { users(first: 20) { edges { node { email organizationId activeOrganization {
          rowId name
          whiteboards(first: 3) { edges { node { rowId name } } }
          files(first: 2) { edges { node { name } } }
          invites(first: 2) { edges { node { email } } } } } } } }
    `;
    await sameBothWays(query, {}, server.keys.globexOwner);
    const { data } = await server.graphql(query, {}, server.keys.globexOwner);
    const mia = data!.users.edges.find((edge: any) => edge.node.email === 'mia.member@acme.example').node;
    expect(mia).toEqual({ email: 'mia.member@acme.example', organizationId: null, activeOrganization: null });
  });

  it('pageInfo, cursors forward and backward, last, node/nodes and me: one statement, as the resolvers answer', async () => {
    const pageInfo = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
    const page = /* GraphQL */ `
      query Page($first: Int, $last: Int, $after: String, $before: String) {
        whiteboards(first: $first, last: $last, after: $after, before: $before, orderBy: [{ field: name, direction: DESC }]) {
          ${pageInfo} edges { cursor node { rowId name dataStreams(last: 1) { ${pageInfo} edges { node { name } } } } }
        }
      }
    `;
    const { data } = await server.graphql('{ whiteboards(first: 3) { edges { cursor } } }');
    const cursors: string[] = data!.whiteboards.edges.map((edge: { cursor: string }) => edge.cursor);
    // A cursor of a row of another organization (Globex's first board, for Acme's owner) pages as no row does.
    const foreign = Buffer.from('GPC:N:999999').toString('base64');
    for (const variables of [
      { first: 2 },
      { first: 2, after: cursors[0] },
      { first: 0, after: cursors[1] },
      { last: 2 },
      { last: 1, before: cursors[2] },
      { first: 1, last: 2 },
      { first: 2, after: foreign },
      { last: 2, before: foreign },
    ]) {
      expect(await sameBothWays(page, variables)).toHaveLength(1);
    }
    const nested = `{ whiteboard(rowId: 1) { dataStreams(first: 1, after: "${Buffer.from('GPC:N:1').toString('base64')}") { ${pageInfo} edges { cursor node { rowId } } } } }`;
    expect(await sameBothWays(nested)).toHaveLength(1);
    // Under `me` as anywhere else, a cursor row that is not among the parent row's rows gives an empty page.
    const underMe = /* GraphQL */ `
      query UnderMe($after: String, $before: String) {
        me {
          memberships(first: 2, after: $after) { ${pageInfo} edges { node { rowId organization { whiteboards(first: 1, after: $after) { ${pageInfo} edges { node { rowId } } } } } } }
          activeOrganization { whiteboards(last: 1, before: $before) { ${pageInfo} edges { node { rowId } } } members(before: $before) { edges { node { rowId } } } }
        }
      }
    `;
    for (const id of [1, 2, 3, 4, 5, 9, 999999]) {
      const cursor = Buffer.from(`GPC:N:${id}`).toString('base64');
      for (const key of [server.keys.owner, server.keys.globexOwner])
        expect(await sameBothWays(underMe, { after: cursor, before: cursor }, key)).toHaveLength(1);
    }
    const nodes = /* GraphQL */ `
      query Nodes($id: ID!, $ids: [ID!]!) {
        me { rowId email memberships { totalCount } }
        node(id: $id) { __typename id ... on Whiteboard { name author { email } } }
        nodes(ids: $ids) { __typename id ... on DataStream { name } ... on User { email } }
      }
    `;
    for (const variables of [
      {
        id: globalId('Whiteboard', 1),
        ids: [globalId('DataStream', 1), globalId('User', 1), globalId('Slide', 999999)],
      },
      { id: globalId('DataStream', 2), ids: [] },
      { id: globalId('PageInfo', 1), ids: [globalId('Nothing', 1)] },
    ]) {
      expect(await sameBothWays(nodes, variables)).toHaveLength(1);
    }
  });

  it('pageInfo with no list, with several, after an offset, on an empty page and backward below a row: one statement, as the resolvers answer', async () => {
    // The cursors are read from the page the lists read (pageOnce): every list beside them, and none.
    const query = /* GraphQL */ `
      query Pages($first: Int, $offset: Int, $after: String, $last: Int, $before: String) {
        alone: whiteboards(first: $first, offset: $offset, after: $after) { pageInfo { startCursor endCursor hasNextPage } }
        lists: whiteboards(first: $first, offset: $offset, after: $after, orderBy: [{ field: name, direction: ASC }]) {
          pageInfo { endCursor } info: pageInfo { __typename startCursor hasPreviousPage }
          nodes { rowId } edges { cursor }
          named: edges { node { name dataStreams(last: $last, before: $before) { totalCount pageInfo { startCursor hasPreviousPage } nodes { rowId } } } }
        }
        whiteboard(rowId: 1) { dataStreams(first: $first, after: $after) { pageInfo { hasNextPage endCursor startCursor } edges { node { rowId } } } }
      }
    `;
    const { data } = await server.graphql('{ whiteboards(first: 3) { edges { cursor } } }');
    const cursors: string[] = data!.whiteboards.edges.map((edge: { cursor: string }) => edge.cursor);
    const stream = Buffer.from('GPC:N:1').toString('base64');
    for (const variables of [
      { first: 2 },
      { first: 1, offset: 1, last: 1 },
      { first: 2, offset: 1, after: cursors[0], last: 1, before: stream },
      { first: 0, last: 0 },
      { first: 5, offset: 100 },
      { first: 1, after: stream, before: stream },
    ]) {
      for (const key of [server.keys.owner, server.keys.globexOwner])
        expect(await sameBothWays(query, variables, key)).toHaveLength(1);
    }
  });

  it('two selections of one relation with other arguments below one row: each its own page, as the resolvers answer', async () => {
    // The resolvers read the second selection for its row alone (pageOfParent), and `me` with findFirst:
    // a cursor row of another board's streams, or of another user's memberships, gives an empty page there too.
    for (const id of [1, 2, 3, 4, 5, 6, 999999]) {
      const cursor = Buffer.from(`GPC:N:${id}`).toString('base64');
      const query = /* GraphQL */ `{
        whiteboard(rowId: 1) {
          before: dataStreams(last: 1, before: "${cursor}") { totalCount nodes { rowId } }
          after: dataStreams(first: 1, after: "${cursor}") { pageInfo { hasNextPage } edges { node { rowId } } }
          all: dataStreams { nodes { rowId } }
        }
        me { after: memberships(first: 1, after: "${cursor}") { totalCount nodes { rowId } } all: memberships { nodes { rowId } } }
        alone: me { memberships(first: 1, after: "${cursor}") { nodes { rowId } } }
      }`;
      for (const key of [server.keys.owner, server.keys.globexOwner, server.keys.both])
        expect(await sameBothWays(query, {}, key)).toHaveLength(1);
    }
  });

  it('the filter operators ne, not, contains and startsWith: one statement, as the resolvers answer', async () => {
    const query = /* GraphQL */ `
      query Filtered($color: String) {
        dataStreams(first: 50, filter: { color: { ne: $color }, or: [{ name: { contains: "a_%" } }, { not: { name: { startsWith: "s" }, authorId: { in: [1, 2] } } }] }) {
          totalCount edges { node { rowId name color } }
        }
      }
    `;
    for (const color of ['#ff0000', 'none']) expect(await sameBothWays(query, { color })).toHaveLength(1);
  });

  it('reuses a plan with other parameter values, and plans anew when a value changes the statement', async () => {
    const query = /* GraphQL */ `
      query Reuse($id: Int!, $name: String, $first: Int, $withAuthor: Boolean!) {
        whiteboard(rowId: $id) { rowId name }
        whiteboards(first: $first, filter: { name: { eq: $name } }) { totalCount edges { node { rowId author @include(if: $withAuthor) { email } } } }
      }
    `;
    const { data } = await server.graphql('{ whiteboards(first: 2) { edges { node { rowId name } } } }');
    const [one, two] = data!.whiteboards.edges.map((edge: { node: { rowId: number; name: string } }) => edge.node);
    for (const variables of [
      { id: one.rowId, name: one.name, first: 5, withAuthor: true },
      { id: two.rowId, name: two.name, first: 5, withAuthor: true },
      { id: two.rowId, name: null, first: 1, withAuthor: false },
      { id: one.rowId, name: 'no such board', first: 1, withAuthor: true },
    ]) {
      expect(await sameBothWays(query, variables)).toHaveLength(1);
    }
  });

  it('leaves to the executor what it cannot plan, and the errors of bad arguments', async () => {
    const viaResolver = await sameBothWays(
      '{ organizationChoices { value label } whiteboards(first: 1) { totalCount } }',
    );
    expect(viaResolver.length).toBeGreaterThan(1);
    await sameBothWays('{ __schema { queryType { name } } whiteboard(rowId: 1) { __typename } }');
    const tooMany = await server.graphql('{ whiteboards(first: 1000) { totalCount } }');
    expect(tooMany.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(tooMany).toEqual(await executed('{ whiteboards(first: 1000) { totalCount } }', {}, server.keys.owner));
  });
});

describe('REST reads', () => {
  /** A REST call to the executor's gateway, as `rest` calls the planned one. */
  async function executedRest(path: string, key: string) {
    const response = await executor.request(path, { headers: { 'x-api-key': key } });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      total: response.headers.get('x-total-count'),
      body: await response.json(),
    };
  }

  it("send the planned statement's object as it is: one statement, the executor's answer, and 404 for a row not there", async () => {
    const { data } = await server.graphql(
      '{ whiteboards(first: 1) { edges { node { rowId } } } classConfs(first: 1) { edges { node { rowId } } } }',
    );
    const board = data!.whiteboards.edges[0].node.rowId;
    const classConf = data!.classConfs.edges[0].node.rowId;
    for (const path of [
      `/api/whiteboard/v1/${board}/`,
      `/api/library/view/v1/class-conf/${classConf}/`,
      '/api/whiteboard/v1/99999999/',
    ]) {
      await rest(server, 'GET', path);
      const { result, statements } = await server.countStatements(() => rest(server, 'GET', path));
      expect(ofTheRequest(statements), path).toHaveLength(1);
      const expected = await executedRest(path, server.keys.owner);
      expect({ status: result.status, type: result.headers.get('content-type'), body: result.body }, path).toEqual({
        ...expected,
        total: undefined,
      });
    }
  });

  it('answer a PUT with the row read back by one planned statement: what the GET answers after it', async () => {
    const { data } = await server.graphql('{ whiteboards(first: 1) { edges { node { rowId } } } }');
    const path = `/api/whiteboard/v1/${data!.whiteboards.edges[0].node.rowId}/`;
    const { result, statements } = await server.countStatements(() =>
      rest(server, 'PUT', path, { json: { name: 'Read back' } }),
    );
    expect(ofTheRequest(statements)).toHaveLength(2);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ name: 'Read back' });
    const expected = await executedRest(path, server.keys.owner);
    expect({ status: result.status, type: result.headers.get('content-type'), body: result.body }).toEqual({
      ...expected,
      total: undefined,
    });
  });

  it("send the planned statement's list of nodes as it is, with its count: one statement, the executor's answer", async () => {
    for (const path of [
      '/api/whiteboard/v1/',
      '/api/whiteboard/v1/data-stream-slide/?limit=5&offset=2',
      '/api/library/control/v1/filter/?name__contains=a&ordering=-name&limit=3',
      '/api/whiteboard/v1/?offset=100000',
    ]) {
      await rest(server, 'GET', path);
      const { result, statements } = await server.countStatements(() => rest(server, 'GET', path));
      expect(ofTheRequest(statements), path).toHaveLength(1);
      const answer = {
        status: result.status,
        type: result.headers.get('content-type'),
        total: result.headers.get('x-total-count'),
        body: result.body,
      };
      expect(answer, path).toEqual(await executedRest(path, server.keys.owner));
      expect(answer.status, path).toBe(200);
    }
  });
});
