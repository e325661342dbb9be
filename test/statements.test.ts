import { afterAll, beforeAll, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let organizationId: number;

// 60 boards, each with 3 data streams of 4 slides, in an organization of their own whose owner is the demo owner.
beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  const author = await prisma.user.findUniqueOrThrow({ where: { email: demo.users.owner.email } });
  const organization = await prisma.organization.create({
    data: { name: 'Statement Count Ltd', members: { create: { userId: author.id, role: 'OWNER' } } },
  });
  organizationId = organization.id;
  const boards = await prisma.whiteboard.createManyAndReturn({
    data: Array.from({ length: 60 }, (_, i) => ({ name: `Board ${i}`, authorId: author.id, organizationId })),
  });
  const streams = await prisma.dataStream.createManyAndReturn({
    data: boards.flatMap((board) =>
      [1, 2, 3].map((n) => ({ name: `Stream ${n}`, whiteboardId: board.id, authorId: author.id })),
    ),
  });
  await prisma.slide.createMany({
    data: streams.flatMap((stream) =>
      [1, 2, 3, 4].map((order) => ({ name: `Slide ${order}`, order, dataStreamId: stream.id, authorId: author.id })),
    ),
  });
});
afterAll(() => server?.close());

const nestedQuery = /* GraphQL */ `
  query Nested($first: Int!, $organizationId: Int!) {
    whiteboards(first: $first, filter: { organizationId: { eq: $organizationId } }) {
      totalCount
      edges { node {
        name
        author { email firstName }
        organization { name }
        dataStreams { totalCount edges { node { name slides { totalCount edges { node { order name } } } } } }
      } }
    }
  }
`;

async function statementsFor(first: number) {
  const { result, statements } = await server.countStatements(() =>
    server.graphql(nestedQuery, { first, organizationId }),
  );
  expect(result.errors).toBeUndefined();
  expect(result.data!.whiteboards.edges).toHaveLength(first);
  for (const { node } of result.data!.whiteboards.edges) {
    expect(node.dataStreams.edges).toHaveLength(3);
    for (const stream of node.dataStreams.edges) expect(stream.node.slides.edges).toHaveLength(4);
  }
  return ofTheRequest(statements);
}

it('reads three levels over 10 and over 50 boards with the same few statements', async () => {
  // The first request of a key also looks the key up; later ones find it cached.
  await server.graphql('{ me { rowId } }');
  const ten = await statementsFor(10);
  const fifty = await statementsFor(50);
  expect(fifty.length).toBe(ten.length);
  // A planned read: the whole answer is built by one statement.
  expect(fifty.length).toBe(1);
});
