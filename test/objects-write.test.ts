import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../src/db/seed/index.js';
import { expectForbiddenToEach, expectNothingChanged, failure, keyFor } from './helpers/changes.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let viewerWriteKey: string;
const ids = {
  platform: 0,
  pipeline: 0,
  network: 0,
  web01: 0,
  api01: 0,
  etl01: 0,
  rotterdam: 0,
  server: 0,
  database: 0,
  truck: 0,
  member: 0,
};
const attribute = {
  cpuCores: 0,
  hostname: 0,
  notes: 0,
  memoryGb: 0,
  production: 0,
  commissioned: 0,
  environment: 0,
  engine: 0,
  plate: 0,
};

beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  const board = async (name: string) => (await prisma.whiteboard.findFirstOrThrow({ where: { name } })).id;
  const object = async (name: string) => (await prisma.whiteboardObject.findFirstOrThrow({ where: { name } })).id;
  const classConf = async (name: string) => (await prisma.classConf.findFirstOrThrow({ where: { name } })).id;
  ids.platform = await board(demo.whiteboards.platform.name);
  ids.pipeline = await board(demo.whiteboards.pipeline.name);
  ids.network = await board(demo.whiteboards.network.name);
  ids.web01 = await object('web-01');
  ids.api01 = await object('api-01');
  ids.etl01 = await object('etl-01');
  ids.rotterdam = await object('Rotterdam hub');
  ids.server = await classConf('Server');
  ids.database = await classConf('Database');
  ids.truck = await classConf('Truck');
  ids.member = (await prisma.user.findUniqueOrThrow({ where: { email: demo.users.member.email } })).id;
  const attributes = await prisma.classConfAttribute.findMany({
    where: { classConfId: { in: [ids.server, ids.database, ids.truck] } },
  });
  for (const code of Object.keys(attribute) as (keyof typeof attribute)[])
    attribute[code] = attributes.find((row) => row.code === code)!.id;
  viewerWriteKey = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;

const object = {
  create: `mutation($input: CreateWhiteboardObjectInput!) { createWhiteboardObject(input: $input) { whiteboardObject { rowId name description authorId whiteboardId classConfId createdAt updatedAt } } }`,
  update: `mutation($input: UpdateWhiteboardObjectInput!) { updateWhiteboardObject(input: $input) { whiteboardObject { rowId name classConfId createdAt updatedAt attributes { totalCount } } } }`,
  remove: `mutation($input: DeleteWhiteboardObjectInput!) { deleteWhiteboardObject(input: $input) { deletedRowId deletedId } }`,
};
const instance = {
  create: `mutation($input: CreateWhiteboardObjectInstanceInput!) { createWhiteboardObjectInstance(input: $input) { whiteboardObjectInstance { rowId objectId x y width height zIndex } } }`,
  update: `mutation($input: UpdateWhiteboardObjectInstanceInput!) { updateWhiteboardObjectInstance(input: $input) { whiteboardObjectInstance { rowId x zIndex createdAt updatedAt } } }`,
  remove: `mutation($input: DeleteWhiteboardObjectInstanceInput!) { deleteWhiteboardObjectInstance(input: $input) { deletedRowId } }`,
};
const connection = {
  create: `mutation($input: CreateWhiteboardObjectConnectionInput!) { createWhiteboardObjectConnection(input: $input) { whiteboardObjectConnection { rowId whiteboardId sourceObjectId targetObjectId name direction shape style } } }`,
  update: `mutation($input: UpdateWhiteboardObjectConnectionInput!) { updateWhiteboardObjectConnection(input: $input) { whiteboardObjectConnection { rowId targetObjectId style } } }`,
  remove: `mutation($input: DeleteWhiteboardObjectConnectionInput!) { deleteWhiteboardObjectConnection(input: $input) { deletedRowId } }`,
};
const setValue = `mutation($input: UpdateWhiteboardObjectAttributeInput!) {
  updateWhiteboardObjectAttribute(input: $input) { whiteboardObjectAttribute { rowId objectId attributeId valueStr valueNumber valueBool valueDate } }
}`;
const codeChoices = `query($whiteboardId: Int, $classConfId: Int) { whiteboardObjectAttributeCodeChoices(whiteboardId: $whiteboardId, classConfId: $classConfId) { value label } }`;
const valueChoices = `query($attributeId: Int!) { whiteboardObjectAttributeValueStrChoices(attributeId: $attributeId) { value label } }`;
const search = `query($query: String!, $whiteboardId: Int, $first: Int, $after: String) {
  searchWhiteboardObjects(query: $query, whiteboardId: $whiteboardId, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { rowId name } } }
}`;

async function newObject(input: Record<string, unknown> = {}): Promise<number> {
  const response = await server.graphql(object.create, {
    input: { whiteboardId: ids.platform, name: 'Scratch', ...input },
  });
  expect(response.errors).toBeUndefined();
  return response.data!.createWhiteboardObject.whiteboardObject.rowId;
}

describe('whiteboard objects', () => {
  it('creates an object authored by the caller, changes its class (dropping the old values) and deletes it with what hangs on it', async () => {
    const created = await server.graphql(
      object.create,
      { input: { whiteboardId: ids.platform, classConfId: ids.server, name: ' web-02 ', description: 'Spare' } },
      server.keys.member,
    );
    expect(created.errors).toBeUndefined();
    const row = created.data!.createWhiteboardObject.whiteboardObject;
    expect(row).toMatchObject({
      name: 'web-02',
      description: 'Spare',
      authorId: ids.member,
      whiteboardId: ids.platform,
      classConfId: ids.server,
    });

    expect(
      (await server.graphql(setValue, { input: { objectId: row.rowId, attributeId: attribute.cpuCores, value: '4' } }))
        .errors,
    ).toBeUndefined();
    await server.graphql(instance.create, { input: { objectId: row.rowId, x: 10, y: 20 } });
    const updated = await server.graphql(
      object.update,
      { input: { rowId: row.rowId, classConfId: ids.database, name: 'db-02' } },
      server.keys.member,
    );
    expect(updated.errors).toBeUndefined();
    const after = updated.data!.updateWhiteboardObject.whiteboardObject;
    expect(after).toMatchObject({
      name: 'db-02',
      classConfId: ids.database,
      createdAt: row.createdAt,
      attributes: { totalCount: 0 },
    });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(row.updatedAt));

    const deleted = await server.graphql(object.remove, { input: { rowId: row.rowId } }, server.keys.member);
    expect(deleted.data!.deleteWhiteboardObject.deletedRowId).toBe(row.rowId);
    expect(await prisma().whiteboardObjectInstance.count({ where: { objectId: row.rowId } })).toBe(0);
    const log = await prisma().userActionLog.findFirst({
      where: { entityType: 'WhiteboardObject', entityId: row.rowId, method: 'DELETE' },
    });
    expect(log?.userId).toBe(ids.member);
  });

  it('refuses invalid input naming the field, changing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ whiteboardId: ids.platform, name: '  ' }, 'input.name'],
      [{ whiteboardId: ids.platform, name: 'x', classConfId: ids.truck }, 'input.classConfId'],
      [{ whiteboardId: ids.network, name: 'x' }, 'input.whiteboardId'],
      [{ whiteboardId: ids.platform, name: 'x'.repeat(256) }, 'input.name'],
    ];
    for (const [input, field] of cases) {
      const response = await expectNothingChanged(server, () => server.graphql(object.create, { input }));
      expect(failure(response)).toEqual({ code: 'BAD_USER_INPUT', field });
    }
  });

  it('answers NOT_FOUND for an unknown object and for one of another organization', async () => {
    expect(failure(await server.graphql(object.update, { input: { rowId: 999_999, name: 'x' } })).code).toBe(
      'NOT_FOUND',
    );
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(object.remove, { input: { rowId: ids.rotterdam } }),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('is refused to a read-only key and to the viewer role, changing nothing', async () => {
    const watched = () => prisma().whiteboardObject.findUnique({ where: { id: ids.web01 } });
    const readOnly = await expectNothingChanged(
      server,
      () => server.graphql(object.update, { input: { rowId: ids.web01, name: 'x' } }, server.keys.viewer),
      watched,
    );
    expect(failure(readOnly).code).toBe('FORBIDDEN');
    const role = await expectNothingChanged(
      server,
      () => server.graphql(object.remove, { input: { rowId: ids.web01 } }, viewerWriteKey),
      watched,
    );
    expect(failure(role).code).toBe('FORBIDDEN');
    const create = await expectNothingChanged(server, () =>
      server.graphql(object.create, { input: { whiteboardId: ids.platform, name: 'x' } }, viewerWriteKey),
    );
    expect(failure(create).code).toBe('FORBIDDEN');
  });
});

describe('object instances', () => {
  it('draws an object, moves the drawing and removes it', async () => {
    const objectId = await newObject();
    const created = (
      await server.graphql(instance.create, { input: { objectId, x: 5, y: 6, width: 50, height: 40, zIndex: 2 } })
    ).data!.createWhiteboardObjectInstance.whiteboardObjectInstance;
    expect(created).toMatchObject({ objectId, x: 5, y: 6, width: 50, height: 40, zIndex: 2 });
    const moved = await server.graphql(
      instance.update,
      { input: { rowId: created.rowId, x: 99.5 } },
      server.keys.member,
    );
    expect(moved.data!.updateWhiteboardObjectInstance.whiteboardObjectInstance).toMatchObject({ x: 99.5, zIndex: 2 });
    expect(
      (await server.graphql(instance.remove, { input: { rowId: created.rowId } })).data!.deleteWhiteboardObjectInstance
        .deletedRowId,
    ).toBe(created.rowId);
  });

  it('refuses a negative size and an object of another organization, changing nothing', async () => {
    const negative = await expectNothingChanged(server, () =>
      server.graphql(instance.create, { input: { objectId: ids.web01, width: -1 } }),
    );
    expect(failure(negative)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.width' });
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(instance.create, { input: { objectId: ids.rotterdam } }),
    );
    expect(failure(foreign)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.objectId' });
  });

  it('answers NOT_FOUND for an unknown instance and FORBIDDEN to the viewer, changing nothing', async () => {
    expect(failure(await server.graphql(instance.update, { input: { rowId: 999_999, x: 1 } })).code).toBe('NOT_FOUND');
    const drawn = await prisma().whiteboardObjectInstance.findFirstOrThrow({ where: { objectId: ids.web01 } });
    const watched = () => prisma().whiteboardObjectInstance.findUnique({ where: { id: drawn.id } });
    await expectForbiddenToEach(
      server,
      [server.keys.viewer, viewerWriteKey],
      (key) => server.graphql(instance.update, { input: { rowId: drawn.id, x: 1 } }, key),
      watched,
    );
  });
});

describe('object connections', () => {
  it('connects two objects of a board, restyles and deletes the connection', async () => {
    const created = await server.graphql(
      connection.create,
      {
        input: {
          whiteboardId: ids.platform,
          sourceObjectId: ids.web01,
          targetObjectId: ids.api01,
          name: 'gRPC',
          direction: 'BIDIRECTIONAL',
          shape: 'CURVED',
        },
      },
      server.keys.member,
    );
    expect(created.errors).toBeUndefined();
    const row = created.data!.createWhiteboardObjectConnection.whiteboardObjectConnection;
    expect(row).toMatchObject({
      whiteboardId: ids.platform,
      sourceObjectId: ids.web01,
      targetObjectId: ids.api01,
      direction: 'BIDIRECTIONAL',
      shape: 'CURVED',
      style: 'SOLID',
    });
    const restyled = await server.graphql(connection.update, {
      input: { rowId: row.rowId, style: 'DOTTED', targetObjectId: ids.web01 },
    });
    expect(restyled.data!.updateWhiteboardObjectConnection.whiteboardObjectConnection).toMatchObject({
      style: 'DOTTED',
      targetObjectId: ids.web01,
    });
    expect(
      (await server.graphql(connection.remove, { input: { rowId: row.rowId } })).data!.deleteWhiteboardObjectConnection
        .deletedRowId,
    ).toBe(row.rowId);
  });

  it('refuses ends that are not on the board of the connection, changing nothing', async () => {
    const otherBoard = await expectNothingChanged(server, () =>
      server.graphql(connection.create, {
        input: { whiteboardId: ids.platform, sourceObjectId: ids.web01, targetObjectId: ids.etl01 },
      }),
    );
    expect(failure(otherBoard)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.targetObjectId' });
    const existing = await prisma().whiteboardObjectConnection.findFirstOrThrow({
      where: { whiteboardId: ids.platform, name: 'REST' },
    });
    const watched = () => prisma().whiteboardObjectConnection.findUnique({ where: { id: existing.id } });
    const moved = await expectNothingChanged(
      server,
      () => server.graphql(connection.update, { input: { rowId: existing.id, sourceObjectId: ids.etl01 } }),
      watched,
    );
    expect(failure(moved)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.sourceObjectId' });
    const foreign = await expectNothingChanged(
      server,
      () => server.graphql(connection.update, { input: { rowId: existing.id, sourceObjectId: ids.rotterdam } }),
      watched,
    );
    expect(failure(foreign)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.sourceObjectId' });
  });

  it('answers NOT_FOUND for an unknown connection and FORBIDDEN to the viewer, changing nothing', async () => {
    expect(failure(await server.graphql(connection.remove, { input: { rowId: 999_999 } })).code).toBe('NOT_FOUND');
    const existing = await prisma().whiteboardObjectConnection.findFirstOrThrow({
      where: { whiteboardId: ids.platform, name: 'SQL' },
    });
    await expectForbiddenToEach(server, [server.keys.viewer, viewerWriteKey], (key) =>
      server.graphql(connection.remove, { input: { rowId: existing.id } }, key),
    );
  });
});

describe('attribute values', () => {
  const value = (objectId: number, attributeId: number) =>
    prisma().whiteboardObjectAttribute.findUnique({ where: { objectId_attributeId: { objectId, attributeId } } });

  it('stores each type in its column, creating the value row when the object has none yet', async () => {
    const objectId = await newObject({ classConfId: ids.server });
    const cases: [number, string, Record<string, unknown>][] = [
      [attribute.hostname, ' web-09 ', { valueStr: 'web-09' }],
      [attribute.cpuCores, '-12', { valueNumber: -12 }],
      [attribute.memoryGb, '1.5e2', { valueNumber: 150 }],
      [attribute.production, 'FALSE', { valueBool: false }],
      [attribute.commissioned, '2024-02-29', { valueDate: '2024-02-29T00:00:00.000Z' }],
      [attribute.environment, 'staging', { valueStr: 'staging' }],
      [attribute.notes, 'Line one\nline two', { valueStr: 'Line one\nline two' }],
    ];
    for (const [attributeId, text, columns] of cases) {
      const response = await server.graphql(
        setValue,
        { input: { objectId, attributeId, value: text } },
        server.keys.member,
      );
      expect(response.errors, text).toBeUndefined();
      expect(response.data!.updateWhiteboardObjectAttribute.whiteboardObjectAttribute).toEqual({
        rowId: expect.any(Number),
        objectId,
        attributeId,
        valueStr: null,
        valueNumber: null,
        valueBool: null,
        valueDate: null,
        ...columns,
      });
    }
    expect(await prisma().whiteboardObjectAttribute.count({ where: { objectId } })).toBe(cases.length);
  });

  it('updates an existing value by its row id, moving updatedAt, and clears an optional one', async () => {
    const before = (await value(ids.web01, attribute.cpuCores))!;
    const response = await server.graphql(setValue, { input: { rowId: before.id, value: '12' } });
    expect(response.data!.updateWhiteboardObjectAttribute.whiteboardObjectAttribute).toMatchObject({
      rowId: before.id,
      valueNumber: 12,
    });
    const after = (await value(ids.web01, attribute.cpuCores))!;
    expect(after.createdAt).toEqual(before.createdAt);
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());

    await server.graphql(setValue, { input: { objectId: ids.web01, attributeId: attribute.notes, value: '' } });
    expect(await value(ids.web01, attribute.notes)).toMatchObject({
      valueStr: null,
      valueNumber: null,
      valueBool: null,
      valueDate: null,
    });
  });

  it('refuses a value that does not fit the type, a required value cleared and an attribute of another class, changing nothing', async () => {
    const cases: [number, string, string][] = [
      [attribute.cpuCores, '1.5', 'input.value'],
      [attribute.cpuCores, '12abc', 'input.value'],
      [attribute.memoryGb, 'abc', 'input.value'],
      [attribute.production, 'yes', 'input.value'],
      [attribute.commissioned, '2026-02-30', 'input.value'],
      [attribute.commissioned, '03/01/2026', 'input.value'],
      [attribute.environment, 'qa', 'input.value'],
      [attribute.hostname, 'x'.repeat(256), 'input.value'],
      [attribute.hostname, '  ', 'input.value'],
      [attribute.engine, 'postgres', 'input.attributeId'],
      [attribute.plate, 'NL-1', 'input.attributeId'],
    ];
    const watched = () =>
      prisma().whiteboardObjectAttribute.findMany({ where: { objectId: ids.web01 }, orderBy: { id: 'asc' } });
    for (const [attributeId, text, field] of cases) {
      const response = await expectNothingChanged(
        server,
        () => server.graphql(setValue, { input: { objectId: ids.web01, attributeId, value: text } }),
        watched,
      );
      expect(failure(response), text).toEqual({ code: 'BAD_USER_INPUT', field });
    }
    const noTarget = await expectNothingChanged(server, () =>
      server.graphql(setValue, { input: { objectId: ids.web01, value: '1' } }),
    );
    expect(failure(noTarget)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.objectId' });
  });

  it('answers NOT_FOUND for an unknown object or value row and one of another organization', async () => {
    expect(
      failure(
        await server.graphql(setValue, { input: { objectId: 999_999, attributeId: attribute.cpuCores, value: '1' } }),
      ).code,
    ).toBe('NOT_FOUND');
    expect(failure(await server.graphql(setValue, { input: { rowId: 999_999, value: '1' } })).code).toBe('NOT_FOUND');
    const foreign = await prisma().whiteboardObjectAttribute.findFirstOrThrow({ where: { objectId: ids.rotterdam } });
    const response = await expectNothingChanged(server, () =>
      server.graphql(setValue, { input: { rowId: foreign.id, value: 'Delft' } }),
    );
    expect(failure(response).code).toBe('NOT_FOUND');
  });

  it('is refused to a read-only key and to the viewer role, changing nothing', async () => {
    const watched = () => value(ids.web01, attribute.hostname);
    await expectForbiddenToEach(
      server,
      [server.keys.viewer, viewerWriteKey],
      (key) =>
        server.graphql(setValue, { input: { objectId: ids.web01, attributeId: attribute.hostname, value: 'x' } }, key),
      watched,
    );
  });
});

describe('attribute choices', () => {
  it('lists the attribute codes of a class, or of the classes on a board', async () => {
    const ofClass = await server.graphql(codeChoices, { classConfId: ids.database }, server.keys.viewer);
    expect(ofClass.data!.whiteboardObjectAttributeCodeChoices).toEqual([
      { value: 'engine', label: 'Engine' },
      { value: 'replicated', label: 'Replicated' },
      { value: 'sizeGb', label: 'Size (GB)' },
    ]);
    const ofBoard = (
      await server.graphql(codeChoices, { whiteboardId: ids.pipeline })
    ).data!.whiteboardObjectAttributeCodeChoices.map((choice: any) => choice.value);
    expect(ofBoard).toEqual(expect.arrayContaining(['unit', 'threshold', 'owner', 'hostname', 'engine', 'team']));
    expect(ofBoard).not.toContain('plate');
    expect(new Set(ofBoard).size).toBe(ofBoard.length);
  });

  it('refuses both or neither source, and answers NOT_FOUND for an unknown or foreign one', async () => {
    expect(failure(await server.graphql(codeChoices, {}))).toEqual({ code: 'BAD_USER_INPUT', field: 'whiteboardId' });
    expect(
      failure(await server.graphql(codeChoices, { whiteboardId: ids.platform, classConfId: ids.server })).code,
    ).toBe('BAD_USER_INPUT');
    expect(failure(await server.graphql(codeChoices, { classConfId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(codeChoices, { classConfId: ids.truck })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(codeChoices, { whiteboardId: ids.network })).code).toBe('NOT_FOUND');
  });

  it('lists the distinct string values of an attribute in one statement, within the caller’s organizations', async () => {
    await server.graphql(valueChoices, { attributeId: attribute.environment });
    const { result, statements } = await server.countStatements(() =>
      server.graphql(valueChoices, { attributeId: attribute.environment }),
    );
    expect(result.data!.whiteboardObjectAttributeValueStrChoices).toEqual([
      { value: 'prod', label: 'prod' },
      { value: 'staging', label: 'staging' },
    ]);
    expect(ofTheRequest(statements)).toHaveLength(1);
    expect(failure(await server.graphql(valueChoices, { attributeId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(valueChoices, { attributeId: attribute.plate })).code).toBe('NOT_FOUND');
    expect(
      (await server.graphql(valueChoices, { attributeId: attribute.plate }, server.keys.member)).data!
        .whiteboardObjectAttributeValueStrChoices.length,
    ).toBeGreaterThan(0);
  });
});

describe('object search', () => {
  it('finds objects by name or string value, ignoring case, in pages', async () => {
    const internal = await server.graphql(search, { query: 'ACME.INTERNAL', first: 2 }, server.keys.viewer);
    expect(internal.errors).toBeUndefined();
    const page = internal.data!.searchWhiteboardObjects;
    expect(page.totalCount).toBeGreaterThanOrEqual(4);
    expect(page.edges).toHaveLength(2);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(
      search,
      { query: 'acme.internal', first: 2, after: page.pageInfo.endCursor },
      server.keys.viewer,
    );
    const seen = [...page.edges, ...next.data!.searchWhiteboardObjects.edges].map((edge: any) => edge.node.rowId);
    expect(new Set(seen).size).toBe(4);

    const byName = await server.graphql(search, { query: 'web-0', whiteboardId: ids.platform });
    expect(byName.data!.searchWhiteboardObjects.edges.map((edge: any) => edge.node.rowId)).toContain(ids.web01);
    expect(
      (await server.graphql(search, { query: 'etl', whiteboardId: ids.platform })).data!.searchWhiteboardObjects
        .totalCount,
    ).toBe(0);
  });

  it('keeps to the caller’s organizations and refuses an empty query', async () => {
    expect((await server.graphql(search, { query: 'rotterdam' })).data!.searchWhiteboardObjects.totalCount).toBe(0);
    expect(
      (await server.graphql(search, { query: 'rotterdam' }, server.keys.member)).data!.searchWhiteboardObjects
        .totalCount,
    ).toBeGreaterThan(0);
    expect(failure(await server.graphql(search, { query: '  ' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'query' });
  });
});
