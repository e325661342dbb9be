import { afterAll, beforeAll, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { ofTheRequest, startInstance, startTestServer, type TestServer } from './helpers/server.js';
import { postGraphQL, globalId } from './helpers/graphql.js';

// The same gateway twice over one database: with read plans (the server) and without (the executor).
let server: TestServer;
let executor: Awaited<ReturnType<typeof startInstance>>;
let boards: { id: number; name: string }[];
let streams: { id: number; name: string }[];
let slides: { id: number; name: string }[];
/** A board, a stream and a slide of Globex, where the demo owner is no member. */
let foreign: { board: number; stream: number; slide: number };

// 20 boards with a data stream of one slide each, in an organization of their own whose owner is the demo owner.
beforeAll(async () => {
  server = await startTestServer();
  executor = await startInstance({ READ_PLANS: 'false' });
  const prisma = server.database.prisma;
  const author = await prisma.user.findUniqueOrThrow({ where: { email: demo.users.owner.email } });
  const organization = await prisma.organization.create({
    data: { name: 'Loader Ltd', members: { create: { userId: author.id, role: 'OWNER' } } },
  });
  boards = await prisma.whiteboard.createManyAndReturn({
    data: Array.from({ length: 20 }, (_, i) => ({
      name: `Board ${i}`,
      authorId: author.id,
      organizationId: organization.id,
    })),
  });
  streams = await prisma.dataStream.createManyAndReturn({
    data: boards.map((board, i) => ({ name: `Stream ${i}`, whiteboardId: board.id, authorId: author.id })),
  });
  slides = await prisma.slide.createManyAndReturn({
    data: streams.map((stream, i) => ({ name: `Slide ${i}`, order: 1, dataStreamId: stream.id, authorId: author.id })),
  });
  const slide = await prisma.slide.findFirstOrThrow({
    where: { dataStream: { whiteboard: { organization: { name: demo.organizations.globex.name } } } },
    include: { dataStream: true },
  });
  foreign = { board: slide.dataStream.whiteboardId, stream: slide.dataStreamId, slide: slide.id };
});
afterAll(async () => {
  await executor?.close();
  await server?.close();
});

/** The statements `query` costs on the gateway at `url`, the demo owner's key already looked up. */
async function statementsOf(url: string, query: string, variables: Record<string, unknown> = {}) {
  await postGraphQL(url, '{ __typename }', { key: server.keys.owner });
  const { result, statements } = await server.countStatements(() =>
    postGraphQL(url, query, { variables, key: server.keys.owner }),
  );
  expect(result.errors).toBeUndefined();
  return { data: result.data!, statements: ofTheRequest(statements) };
}

const boardFields = 'rowId name author { email } dataStreams { edges { node { name } } }';

/** Twenty lookups with the same selection, and one more of another organization's board; `extra` joins them. */
const aliasedLookups = (extra = '') => `{
  ${boards.map((board, i) => `b${i}: whiteboard(rowId: ${board.id}) { ${boardFields} }`).join('\n  ')}
  foreign: whiteboard(rowId: ${foreign.board}) { ${boardFields} }
  ${extra}
}`;

function expectBoards(data: Record<string, any>) {
  for (const [i, board] of boards.entries())
    expect(data[`b${i}`]).toEqual({
      rowId: board.id,
      name: board.name,
      author: { email: demo.users.owner.email },
      dataStreams: { edges: [{ node: { name: streams[i].name } }] },
    });
  expect(data.foreign).toBeNull();
}

// An author may be a user of no organization of the caller's, so the resolvers load authors apart,
// through the row loader under the user's tenancy: one statement more, whatever the number of boards.
it('answers 20 aliased root lookups with one statement planned, and one per model through the resolvers', async () => {
  for (const [url, count] of [
    [server.url, 1],
    [executor.url, 2],
  ] as const) {
    const { data, statements } = await statementsOf(url, aliasedLookups());
    expectBoards(data);
    expect(statements).toHaveLength(count);
  }
});

it('answers them with one statement per model through the resolvers when another field makes the operation unplannable', async () => {
  const { data, statements } = await statementsOf(server.url, aliasedLookups('organizationChoices { value }'));
  expectBoards(data);
  // The boards, their authors, and the organizations offered.
  expect(statements).toHaveLength(3);
});

const nodesQuery = /* GraphQL */ `
  query Nodes($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      ... on Whiteboard { name author { email } }
      ... on DataStream { name whiteboard { name } }
      ... on Slide { name order dataStream { name } }
    }
  }
`;

it('answers nodes over 50 ids of three types with one statement planned, one per type (and one for the authors) through the resolvers, and null for another organization', async () => {
  const ids = [
    ...boards.map((board) => globalId('Whiteboard', board.id)),
    ...streams.map((stream) => globalId('DataStream', stream.id)),
    ...slides.slice(0, 10).map((slide) => globalId('Slide', slide.id)),
    globalId('Whiteboard', foreign.board),
    globalId('DataStream', foreign.stream),
    globalId('Slide', foreign.slide),
  ];
  // Planned, the whole answer is one statement; through the resolvers one per type and one for the authors.
  for (const [url, count] of [
    [server.url, 1],
    [executor.url, 4],
  ] as const) {
    const { data, statements } = await statementsOf(url, nodesQuery, { ids });
    expect(data.nodes).toEqual([
      ...boards.map((board) => ({
        __typename: 'Whiteboard',
        name: board.name,
        author: { email: demo.users.owner.email },
      })),
      ...streams.map((stream, i) => ({
        __typename: 'DataStream',
        name: stream.name,
        whiteboard: { name: boards[i].name },
      })),
      ...slides.slice(0, 10).map((slide, i) => ({
        __typename: 'Slide',
        name: slide.name,
        order: 1,
        dataStream: { name: streams[i].name },
      })),
      null,
      null,
      null,
    ]);
    expect(statements).toHaveLength(count);
  }
});

// Through the resolvers: the boards with their streams, the cursor row's visibility, and the second
// selection read for all 20 boards at once through the row loader (its rows apart, as Prisma reads a cursor page).
it('answers a relation selected twice with other arguments below each of 20 boards with one statement planned, and four through the resolvers', async () => {
  const cursor = Buffer.from(`GPC:N:${streams[0].id}`).toString('base64');
  const query = /* GraphQL */ `{
    ${boards.map((board, i) => `b${i}: whiteboard(rowId: ${board.id}) { name dataStreams { nodes { name } } after: dataStreams(first: 1, after: "${cursor}") { nodes { name } } }`).join('\n    ')}
  }`;
  for (const [url, count] of [
    [server.url, 1],
    [executor.url, 4],
  ] as const) {
    const { data, statements } = await statementsOf(url, query);
    // A cursor row that is not among a board's streams gives that board an empty page.
    for (const [i, board] of boards.entries())
      expect(data[`b${i}`]).toEqual({
        name: board.name,
        dataStreams: { nodes: [{ name: streams[i].name }] },
        after: { nodes: [] },
      });
    expect(statements).toHaveLength(count);
  }
});
