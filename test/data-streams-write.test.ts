import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
const ids = {
  platform: 0,
  pipeline: 0,
  network: 0,
  checkout: 0,
  inbound: 0,
  webToApi: 0,
  apiToDb: 0,
  pipelineConnection: 0,
  networkConnection: 0,
};
beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  const boardId = async (name: string) => (await prisma.whiteboard.findFirstOrThrow({ where: { name } })).id;
  const streamId = async (name: string) => (await prisma.dataStream.findFirstOrThrow({ where: { name } })).id;
  const connectionId = async (whiteboardId: number, name: string) =>
    (await prisma.whiteboardObjectConnection.findFirstOrThrow({ where: { whiteboardId, name } })).id;
  ids.platform = await boardId(demo.whiteboards.platform.name);
  ids.pipeline = await boardId(demo.whiteboards.pipeline.name);
  ids.network = await boardId(demo.whiteboards.network.name);
  ids.checkout = await streamId('Checkout request');
  ids.inbound = await streamId('Inbound shipment');
  ids.webToApi = await connectionId(ids.platform, 'REST');
  ids.apiToDb = await connectionId(ids.platform, 'SQL');
  ids.pipelineConnection = await connectionId(ids.pipeline, 'CSV');
  ids.networkConnection = await connectionId(ids.network, 'A12 corridor');
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;
const orders = (model: 'slide' | 'dataStreamConnection', dataStreamId: number) =>
  (prisma()[model] as any).findMany({
    where: { dataStreamId },
    orderBy: [{ order: 'asc' }, { id: 'asc' }],
    select: { id: true, order: true },
  }) as Promise<{ id: number; order: number }[]>;

const stream = {
  create: `mutation($input: CreateDataStreamInput!) { createDataStream(input: $input) { dataStream { rowId name color authorId whiteboardId createdAt updatedAt } } }`,
  update: `mutation($input: UpdateDataStreamInput!) { updateDataStream(input: $input) { dataStream { rowId name icon createdAt updatedAt } } }`,
  remove: `mutation($input: DeleteDataStreamInput!) { deleteDataStream(input: $input) { deletedRowId } }`,
};
const slide = {
  create: `mutation($input: CreateSlideInput!) { createSlide(input: $input) { slide { rowId name order authorId enableCamera cameraX1 dataStreamId } } }`,
  update: `mutation($input: UpdateSlideInput!) { updateSlide(input: $input) { slide { rowId name order createdAt updatedAt } } }`,
  remove: `mutation($input: DeleteSlideInput!) { deleteSlide(input: $input) { deletedRowId } }`,
  reorder: `mutation($input: ReorderSlidesInput!) { reorderSlides(input: $input) { rowId order } }`,
};
const step = {
  create: `mutation($input: CreateDataStreamConnectionInput!) { createDataStreamConnection(input: $input) { dataStreamConnection { rowId order direction objectConnectionId description } } }`,
  update: `mutation($input: UpdateDataStreamConnectionInput!) { updateDataStreamConnection(input: $input) { dataStreamConnection { rowId direction objectConnectionId } } }`,
  remove: `mutation($input: DeleteDataStreamConnectionInput!) { deleteDataStreamConnection(input: $input) { deletedRowId } }`,
  reorder: `mutation($input: ReorderDataStreamConnectionsInput!) { reorderDataStreamConnections(input: $input) { rowId order } }`,
};

async function newStream(name = 'Scratch stream'): Promise<number> {
  const response = await server.graphql(stream.create, { input: { whiteboardId: ids.platform, name } });
  expect(response.errors).toBeUndefined();
  return response.data!.createDataStream.dataStream.rowId;
}

describe('data streams', () => {
  it('creates a stream authored by the caller, updates it (updatedAt moves, createdAt stays) and deletes it with its slides', async () => {
    const created = await server.graphql(
      stream.create,
      { input: { whiteboardId: ids.platform, name: ' Refunds ', color: '#FF0000' } },
      server.keys.member,
    );
    expect(created.errors).toBeUndefined();
    const row = created.data!.createDataStream.dataStream;
    const member = await prisma().user.findUniqueOrThrow({ where: { email: demo.users.member.email } });
    expect(row).toMatchObject({ name: 'Refunds', color: '#FF0000', authorId: member.id, whiteboardId: ids.platform });

    const updated = (await server.graphql(stream.update, { input: { rowId: row.rowId, icon: 'money' } })).data!
      .updateDataStream.dataStream;
    expect(updated).toMatchObject({ icon: 'money', name: 'Refunds', createdAt: row.createdAt });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(row.updatedAt));

    await server.graphql(slide.create, { input: { dataStreamId: row.rowId, name: 'one' } });
    const deleted = await server.graphql(stream.remove, { input: { rowId: row.rowId } });
    expect(deleted.data!.deleteDataStream.deletedRowId).toBe(row.rowId);
    expect(await prisma().slide.count({ where: { dataStreamId: row.rowId } })).toBe(0);
  });

  it('refuses invalid input naming the field, and a board of another organization, changing nothing', async () => {
    const empty = await expectNothingChanged(server, () =>
      server.graphql(stream.create, { input: { whiteboardId: ids.platform, name: '   ' } }),
    );
    expect(failure(empty)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
    const long = await expectNothingChanged(server, () =>
      server.graphql(stream.create, { input: { whiteboardId: ids.platform, name: 'x', color: '#'.repeat(33) } }),
    );
    expect(failure(long)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.color' });
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(stream.create, { input: { whiteboardId: ids.network, name: 'x' } }),
    );
    expect(failure(foreign)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.whiteboardId' });
  });

  it('answers NOT_FOUND for an unknown stream and for a stream of another organization', async () => {
    expect(failure(await server.graphql(stream.update, { input: { rowId: 999_999, name: 'x' } })).code).toBe(
      'NOT_FOUND',
    );
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(stream.remove, { input: { rowId: ids.inbound } }),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('is refused to a read-only key and to the viewer role, changing nothing', async () => {
    const watched = () => prisma().dataStream.findUnique({ where: { id: ids.checkout } });
    const readOnly = await expectNothingChanged(
      server,
      () => server.graphql(stream.update, { input: { rowId: ids.checkout, name: 'x' } }, server.keys.viewer),
      watched,
    );
    expect(failure(readOnly).code).toBe('FORBIDDEN');
    const viewer = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
    const role = await expectNothingChanged(
      server,
      () => server.graphql(stream.remove, { input: { rowId: ids.checkout } }, viewer),
      watched,
    );
    expect(failure(role).code).toBe('FORBIDDEN');
  });
});

describe('slides', () => {
  it('puts a new slide last unless given an order, and updates it', async () => {
    const streamId = await newStream();
    const first = (await server.graphql(slide.create, { input: { dataStreamId: streamId, name: 'A' } })).data!
      .createSlide.slide;
    const second = (
      await server.graphql(slide.create, {
        input: { dataStreamId: streamId, name: 'B', enableCamera: true, cameraX1: 12.5 },
      })
    ).data!.createSlide.slide;
    expect([first.order, second.order]).toEqual([1, 2]);
    expect(second).toMatchObject({ enableCamera: true, cameraX1: 12.5, dataStreamId: streamId });
    const placed = (await server.graphql(slide.create, { input: { dataStreamId: streamId, name: 'C', order: 7 } }))
      .data!.createSlide.slide;
    expect(placed.order).toBe(7);
    expect(
      (await server.graphql(slide.create, { input: { dataStreamId: streamId, name: 'D' } })).data!.createSlide.slide
        .order,
    ).toBe(8);

    const updated = (
      await server.graphql(slide.update, {
        input: { id: Buffer.from(`Slide:${first.rowId}`).toString('base64'), name: 'A2' },
      })
    ).data!.updateSlide.slide;
    expect(updated).toMatchObject({ rowId: first.rowId, name: 'A2' });
    expect(
      (await server.graphql(slide.remove, { input: { rowId: placed.rowId } })).data!.deleteSlide.deletedRowId,
    ).toBe(placed.rowId);
  });

  it('refuses invalid input, unknown ids and callers the matrix refuses, changing nothing', async () => {
    const tooLong = await expectNothingChanged(server, () =>
      server.graphql(slide.create, { input: { dataStreamId: ids.checkout, name: 'n'.repeat(256) } }),
    );
    expect(failure(tooLong)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
    const order = await expectNothingChanged(server, () =>
      server.graphql(slide.create, { input: { dataStreamId: ids.checkout, name: 'x', order: 0 } }),
    );
    expect(failure(order)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.order' });
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(slide.create, { input: { dataStreamId: ids.inbound, name: 'x' } }),
    );
    expect(failure(foreign)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.dataStreamId' });
    expect(failure(await server.graphql(slide.update, { input: { rowId: 999_999, name: 'x' } })).code).toBe(
      'NOT_FOUND',
    );
    expect(failure(await server.graphql(slide.remove, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const readOnly = await expectNothingChanged(server, () =>
      server.graphql(slide.create, { input: { dataStreamId: ids.checkout, name: 'x' } }, server.keys.viewer),
    );
    expect(failure(readOnly).code).toBe('FORBIDDEN');
  });

  it('reorders all slides of a stream at once', async () => {
    const before = await orders('slide', ids.checkout);
    const reversed = before.map((row) => row.id).reverse();
    expect(reversed.length).toBeGreaterThan(2);
    const { result: response, statements } = await server.countStatements(() =>
      server.graphql(slide.reorder, { input: { dataStreamId: ids.checkout, ids: reversed } }, server.keys.member),
    );
    expect(response.errors).toBeUndefined();
    // Every slide's new place in one statement, however many there are.
    expect(statements.filter((sql) => /^UPDATE ("public"\.)?"whiteboard_data_stream_slide"/.test(sql))).toHaveLength(1);
    expect(response.data!.reorderSlides).toEqual(reversed.map((rowId, index) => ({ rowId, order: index + 1 })));
    expect((await orders('slide', ids.checkout)).map((row) => row.id)).toEqual(reversed);
  });

  it('refuses a list that is not exactly the stream’s slides, an unknown stream and a read-only key, changing nothing', async () => {
    const current = (await orders('slide', ids.checkout)).map((row) => row.id);
    const watched = () => orders('slide', ids.checkout);
    for (const list of [current.slice(1), [...current, current[0]], [...current.slice(1), 999_999]]) {
      const response = await expectNothingChanged(
        server,
        () => server.graphql(slide.reorder, { input: { dataStreamId: ids.checkout, ids: list } }),
        watched,
      );
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.ids' });
    }
    expect(failure(await server.graphql(slide.reorder, { input: { dataStreamId: 999_999, ids: [] } })).code).toBe(
      'NOT_FOUND',
    );
    expect(failure(await server.graphql(slide.reorder, { input: { dataStreamId: ids.inbound, ids: [] } })).code).toBe(
      'NOT_FOUND',
    );
    const readOnly = await expectNothingChanged(
      server,
      () => server.graphql(slide.reorder, { input: { dataStreamId: ids.checkout, ids: current } }, server.keys.viewer),
      watched,
    );
    expect(failure(readOnly).code).toBe('FORBIDDEN');
  });
});

describe('data stream connections', () => {
  it('adds a step on a connection of the stream’s board, last unless given an order, and updates it', async () => {
    const before = await orders('dataStreamConnection', ids.checkout);
    const created = await server.graphql(step.create, {
      input: { dataStreamId: ids.checkout, objectConnectionId: ids.webToApi, description: 'Retry' },
    });
    expect(created.errors).toBeUndefined();
    const row = created.data!.createDataStreamConnection.dataStreamConnection;
    expect(row).toMatchObject({
      order: before.at(-1)!.order + 1,
      direction: 'FORWARD',
      objectConnectionId: ids.webToApi,
      description: 'Retry',
    });

    const updated = await server.graphql(step.update, {
      input: { rowId: row.rowId, direction: 'BACKWARD', objectConnectionId: ids.apiToDb },
    });
    expect(updated.data!.updateDataStreamConnection.dataStreamConnection).toEqual({
      rowId: row.rowId,
      direction: 'BACKWARD',
      objectConnectionId: ids.apiToDb,
    });
    expect(
      (await server.graphql(step.remove, { input: { rowId: row.rowId } })).data!.deleteDataStreamConnection
        .deletedRowId,
    ).toBe(row.rowId);
  });

  it('refuses a connection of another board, of another organization, or none at all, on create and update, changing nothing', async () => {
    for (const objectConnectionId of [ids.pipelineConnection, ids.networkConnection, 999_999]) {
      const response = await expectNothingChanged(server, () =>
        server.graphql(step.create, { input: { dataStreamId: ids.checkout, objectConnectionId } }),
      );
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.objectConnectionId' });
    }
    const existing = (await orders('dataStreamConnection', ids.checkout))[0].id;
    const watched = () => prisma().dataStreamConnection.findUnique({ where: { id: existing } });
    const response = await expectNothingChanged(
      server,
      () => server.graphql(step.update, { input: { rowId: existing, objectConnectionId: ids.pipelineConnection } }),
      watched,
    );
    expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.objectConnectionId' });
    const nulled = await expectNothingChanged(
      server,
      () => server.graphql(step.update, { input: { rowId: existing, objectConnectionId: null } }),
      watched,
    );
    expect(failure(nulled)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.objectConnectionId' });
  });

  it('answers NOT_FOUND for an unknown step and refuses the viewer role, changing nothing', async () => {
    expect(failure(await server.graphql(step.update, { input: { rowId: 999_999, description: 'x' } })).code).toBe(
      'NOT_FOUND',
    );
    expect(failure(await server.graphql(step.remove, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const viewer = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
    const response = await expectNothingChanged(server, () =>
      server.graphql(step.create, { input: { dataStreamId: ids.checkout, objectConnectionId: ids.webToApi } }, viewer),
    );
    expect(failure(response).code).toBe('FORBIDDEN');
  });

  it('reorders all steps of a stream at once and refuses a partial list', async () => {
    const current = (await orders('dataStreamConnection', ids.checkout)).map((row) => row.id);
    const rotated = [...current.slice(1), current[0]];
    const response = await server.graphql(step.reorder, { input: { dataStreamId: ids.checkout, ids: rotated } });
    expect(response.data!.reorderDataStreamConnections.map((row: any) => row.rowId)).toEqual(rotated);
    const partial = await expectNothingChanged(
      server,
      () => server.graphql(step.reorder, { input: { dataStreamId: ids.checkout, ids: rotated.slice(1) } }),
      () => orders('dataStreamConnection', ids.checkout),
    );
    expect(failure(partial)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.ids' });
    const readOnly = await expectNothingChanged(server, () =>
      server.graphql(step.reorder, { input: { dataStreamId: ids.checkout, ids: rotated } }, server.keys.viewer),
    );
    expect(failure(readOnly).code).toBe('FORBIDDEN');
  });
});
