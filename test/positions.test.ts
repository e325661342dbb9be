import { afterAll, beforeAll, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const APPENDS = 10;

async function data(query: string, variables: Record<string, unknown>) {
  const response = await server.graphql(query, variables);
  expect(response.errors).toBeUndefined();
  return response.data!;
}

/** Sends the appends at once, each in its own HTTP request, and answers the positions they got. */
async function appendAtOnce(
  query: string,
  input: (index: number) => Record<string, unknown>,
  order: (data: Record<string, any>) => number,
) {
  const answers = await Promise.all(
    Array.from({ length: APPENDS }, (_, index) => data(query, { input: input(index) })),
  );
  return answers.map(order).sort((a, b) => a - b);
}

const oneToTen = Array.from({ length: APPENDS }, (_, index) => index + 1);

it('gives concurrent appends of slides and stream steps to one stream distinct positions', async () => {
  const board = await server.database.prisma.whiteboard.findFirstOrThrow({
    where: { name: demo.whiteboards.platform.name },
  });
  const connection = await server.database.prisma.whiteboardObjectConnection.findFirstOrThrow({
    where: { whiteboardId: board.id },
  });
  const created = await data(
    `mutation($input: CreateDataStreamInput!) { createDataStream(input: $input) { dataStream { rowId } } }`,
    {
      input: { whiteboardId: board.id, name: 'Raced stream' },
    },
  );
  const dataStreamId = created.createDataStream.dataStream.rowId;

  const slides = await appendAtOnce(
    `mutation($input: CreateSlideInput!) { createSlide(input: $input) { slide { order } } }`,
    (index) => ({ dataStreamId, name: `Slide ${index}` }),
    (answer) => answer.createSlide.slide.order,
  );
  expect(slides).toEqual(oneToTen);

  const steps = await appendAtOnce(
    `mutation($input: CreateDataStreamConnectionInput!) { createDataStreamConnection(input: $input) { dataStreamConnection { order } } }`,
    () => ({ dataStreamId, objectConnectionId: connection.id }),
    (answer) => answer.createDataStreamConnection.dataStreamConnection.order,
  );
  expect(steps).toEqual(oneToTen);
});

it('gives concurrent appends of attributes to one class distinct positions', async () => {
  const library = await data(`mutation { createLibrary(input: { name: "Raced library" }) { library { rowId } } }`, {});
  const created = await data(
    `mutation($input: CreateClassConfInput!) { createClassConf(input: $input) { classConf { rowId } } }`,
    {
      input: { libraryId: library.createLibrary.library.rowId, name: 'Raced class' },
    },
  );
  const classConfId = created.createClassConf.classConf.rowId;

  const attributes = await appendAtOnce(
    `mutation($input: CreateClassConfAttributeInput!) { createClassConfAttribute(input: $input) { classConfAttribute { order } } }`,
    (index) => ({ classConfId, name: `Attribute ${index}`, code: `attribute_${index}` }),
    (answer) => answer.createClassConfAttribute.classConfAttribute.order,
  );
  expect(attributes).toEqual(oneToTen);
});
