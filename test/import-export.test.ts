import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows } from '../src/db/seed/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/errors.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const db = () => server.database.prisma;

/** Row counts of every table. */
const counts = () => countRows(db());

const exportQuery = `query($rowId: Int!) { exportWhiteboard(rowId: $rowId) }`;
const importMutation = `mutation($input: ImportWhiteboardInput!) { importWhiteboard(input: $input) { importedObjects whiteboard { rowId name organizationId authorId } } }`;
const importObjectsMutation = `mutation($input: ImportWhiteboardObjectsInput!) { importWhiteboardObjects(input: $input) { importedObjects whiteboard { rowId } } }`;

const boardId = async (name: string) => (await db().whiteboard.findFirstOrThrow({ where: { name } })).id;
const exported = async (name: string) =>
  (await server.graphql(exportQuery, { rowId: await boardId(name) })).data!.exportWhiteboard;

/** A document with its row ids replaced by their positions, so two exports of equal boards compare equal. */
function withoutIds(document: any) {
  const objectIndex = new Map(document.objects.map((o: any, i: number) => [o.id, i]));
  const connectionIndex = new Map(document.objectConnections.map((c: any, i: number) => [c.id, i]));
  const groupIndex = new Map(document.highlightGroups.map((g: any, i: number) => [g.id, i]));
  const { exportedAt: _at, source: _source, ...rest } = document;
  return {
    ...rest,
    objects: document.objects.map(({ id: _id, ...o }: any) => o),
    objectConnections: document.objectConnections.map(({ id: _id, sourceObjectId, targetObjectId, ...c }: any) => ({
      ...c,
      source: objectIndex.get(sourceObjectId),
      target: objectIndex.get(targetObjectId),
    })),
    relations: document.relations.map((r: any) => [
      objectIndex.get(r.parentObjectId),
      objectIndex.get(r.childObjectId),
    ]),
    dataStreams: document.dataStreams.map((s: any) => ({
      ...s,
      connections: s.connections.map(({ objectConnectionId, ...c }: any) => ({
        ...c,
        connection: connectionIndex.get(objectConnectionId),
      })),
    })),
    highlightGroups: document.highlightGroups.map(({ id: _id, ...g }: any) => g),
    highlights: document.highlights.map(({ groupId, ...h }: any) => ({
      ...h,
      group: groupId === null ? null : groupIndex.get(groupId),
    })),
  };
}

describe('exportWhiteboard', () => {
  it('gives the board with everything on it, classes by id and values by code', async () => {
    const document = await exported('Production platform');
    expect(document.format).toBe('whiteboard-gateway/1');
    expect(document.whiteboard).toEqual({
      name: 'Production platform',
      description: 'What serves the customer portal.',
    });
    expect(document.objects).toHaveLength(7);
    const web01 = document.objects.find((o: any) => o.name === 'web-01');
    const server_ = await db().classConf.findFirstOrThrow({ where: { name: 'Server' } });
    expect(web01).toMatchObject({
      classConfId: server_.id,
      instances: [{ x: 80, y: 100, width: 200, height: 56, zIndex: 1 }],
    });
    expect(web01.attributes).toEqual({
      hostname: 'web-01.acme.internal',
      cpuCores: 8,
      memoryGb: 32,
      production: true,
      commissioned: '2025-03-14',
      environment: 'prod',
      notes: 'Serves the customer portal.',
    });
    expect(document.objects.find((o: any) => o.name === 'orders-db').instances).toHaveLength(2);
    expect(document.objectConnections).toHaveLength(6);
    expect(document.relations).toHaveLength(2);
    expect(document.dataStreams.map((s: any) => [s.name, s.slides.length, s.connections.length])).toEqual([
      ['Checkout request', 3, 3],
      ['Release train', 3, 3],
    ]);
    expect(document.highlightGroups).toHaveLength(2);
    expect(document.highlights).toHaveLength(5);
    expect(document.highlights[0]).toMatchObject({ attributeCode: 'environment', operand: 'EQUAL', value: 'prod' });
  });

  it('reads a board in a constant number of statements', async () => {
    const small = await server.countStatements(() => exported('Legacy datacenter'));
    const large = await server.countStatements(() => exported('Production platform'));
    const reads = (statements: string[]) =>
      statements.filter((sql) => !/api_key|user_organization|"user"/.test(sql)).length;
    expect(reads(large.statements)).toBe(reads(small.statements));
    expect(reads(large.statements)).toBeLessThanOrEqual(2);
  });

  it('gives null for an unknown board and for a board of another organization', async () => {
    expect((await server.graphql(exportQuery, { rowId: 999_999 })).data!.exportWhiteboard).toBeNull();
    expect(
      (await server.graphql(exportQuery, { rowId: await boardId('Distribution network') })).data!.exportWhiteboard,
    ).toBeNull();
  });
});

describe('importWhiteboard', () => {
  it('creates a new board in the active organization that exports as the original did', async () => {
    const original = await exported('Production platform');
    const before = await counts();
    const { data, errors } = await server.graphql(
      importMutation,
      { input: { document: { ...original, whiteboard: { name: 'Platform (copy)' } } } },
      server.keys.member,
    );
    expect(errors).toBeUndefined();
    const board = data!.importWhiteboard.whiteboard;
    const member = await db().user.findFirstOrThrow({ where: { email: 'mia.member@acme.example' } });
    expect(board).toMatchObject({
      name: 'Platform (copy)',
      organizationId: member.activeOrganizationId,
      authorId: member.id,
    });
    expect(data!.importWhiteboard.importedObjects).toBe(7);
    const after = await counts();
    expect(after.whiteboardObject - before.whiteboardObject).toBe(7);
    expect(after.userActionLog - before.userActionLog).toBe(1);

    const copy = (await server.graphql(exportQuery, { rowId: board.rowId })).data!.exportWhiteboard;
    expect(withoutIds(copy)).toEqual(
      withoutIds({ ...original, whiteboard: { name: 'Platform (copy)', description: '' } }),
    );
    expect(copy.objects[0].id).not.toBe(original.objects[0].id);
  });

  it('refuses a document that does not validate, naming the part, and changes nothing', async () => {
    const original = await exported('Production platform');
    const globexClass = await db().classConf.findFirstOrThrow({ where: { name: 'Truck' } });
    const before = await counts();
    const cases: [document: any, field: string][] = [
      [{ ...original, format: 'whiteboard-gateway/99' }, 'input.document.format'],
      [{ ...original, whiteboard: { name: ' ' } }, 'input.document.whiteboard.name'],
      [
        { ...original, objects: original.objects.map((o: any, i: number) => (i === 3 ? { ...o, name: '' } : o)) },
        'input.document.objects[3].name',
      ],
      [
        {
          ...original,
          objects: original.objects.map((o: any, i: number) =>
            i === 1 ? { ...o, attributes: { ...o.attributes, cpuCores: 'eight' } } : o,
          ),
        },
        'input.document.objects[1].attributes.cpuCores',
      ],
      [
        {
          ...original,
          objects: original.objects.map((o: any, i: number) =>
            i === 1 ? { ...o, attributes: { ...o.attributes, environment: 'qa' } } : o,
          ),
        },
        'input.document.objects[1].attributes.environment',
      ],
      [
        {
          ...original,
          objects: original.objects.map((o: any, i: number) => (i === 1 ? { ...o, attributes: { colour: 'red' } } : o)),
        },
        'input.document.objects[1].attributes.colour',
      ],
      [
        {
          ...original,
          objects: original.objects.map((o: any, i: number) => (i === 0 ? { ...o, classConfId: globexClass.id } : o)),
        },
        'input.document.objects[0].classConfId',
      ],
      // Beyond int4: no row has such an id, and PostgreSQL would refuse to compare it.
      [
        {
          ...original,
          objects: original.objects.map((o: any, i: number) => (i === 0 ? { ...o, classConfId: 2 ** 40 } : o)),
        },
        'input.document.objects[0].classConfId',
      ],
      // A value PostgreSQL refuses, refused by the argument check before the document is read.
      [{ ...original, whiteboard: { name: 'a\u0000b' } }, 'input.document.whiteboard.name'],
      [
        {
          ...original,
          objects: original.objects.map((o: any, i: number) => (i === 2 ? { ...o, instances: [{ x: 'left' }] } : o)),
        },
        'input.document.objects[2].instances[0].x',
      ],
      [
        { ...original, objectConnections: [{ ...original.objectConnections[0], sourceObjectId: 999_999 }] },
        'input.document.objectConnections[0].sourceObjectId',
      ],
      [
        { ...original, objectConnections: [{ ...original.objectConnections[0], shape: 'WAVY' }] },
        'input.document.objectConnections[0].shape',
      ],
      [
        { ...original, dataStreams: [{ ...original.dataStreams[0], connections: [{ objectConnectionId: 999_999 }] }] },
        'input.document.dataStreams[0].connections[0].objectConnectionId',
      ],
      [
        { ...original, highlights: [{ ...original.highlights[0], attributeCode: 'nope' }] },
        'input.document.highlights[0].attributeCode',
      ],
      [[1, 2, 3], 'input.document'],
    ];
    for (const [document, field] of cases) {
      const response = await server.graphql(importMutation, { input: { document } });
      expectError(response, 'BAD_USER_INPUT', field);
    }
    expect(await counts()).toEqual(before);
  });

  it('takes the document as an uploaded JSON file too', async () => {
    const send = async (content: string) => {
      const form = new FormData();
      form.set('operations', JSON.stringify({ query: importMutation, variables: { input: { file: null } } }));
      form.set('map', JSON.stringify({ 0: ['variables.input.file'] }));
      form.set('0', new Blob([content], { type: 'application/json' }), 'board.json');
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        body: form,
        headers: { 'x-api-key': server.keys.owner },
      });
      return (await response.json()) as { data?: any; errors?: any[] };
    };
    const { data, errors } = await send(JSON.stringify(await exported('Data pipeline')));
    expect(errors).toBeUndefined();
    expect(data.importWhiteboard).toMatchObject({ importedObjects: 5, whiteboard: { name: 'Data pipeline' } });
    const before = await counts();
    expectError(await send('{ not json'), 'BAD_USER_INPUT', 'input.file');
    expectError(
      await send(JSON.stringify({ ...(await exported('Data pipeline')), whiteboard: { name: 'a\u0000b' } })),
      'BAD_USER_INPUT',
      'input.document.whiteboard.name',
    );
    expectError(await server.graphql(importMutation, { input: {} }), 'BAD_USER_INPUT', 'input.document');
    expect(await counts()).toEqual(before);
  });

  it('refuses a read-only key', async () => {
    const before = await counts();
    expectError(
      await server.graphql(
        importMutation,
        { input: { document: await exported('Data pipeline') } },
        server.keys.viewer,
      ),
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });
});

describe('importWhiteboardObjects', () => {
  it("adds a document's objects with their instances, values, connections and relations to a board", async () => {
    const document = await exported('Production platform');
    const target = await boardId('Data pipeline');
    const before = await counts();
    const { data, errors } = await server.graphql(
      importObjectsMutation,
      { input: { whiteboardId: target, document } },
      server.keys.admin,
    );
    expect(errors).toBeUndefined();
    expect(data!.importWhiteboardObjects).toEqual({ importedObjects: 7, whiteboard: { rowId: target } });
    const after = await counts();
    expect(after).toMatchObject({
      whiteboard: before.whiteboard,
      whiteboardObject: before.whiteboardObject + 7,
      whiteboardObjectInstance: before.whiteboardObjectInstance + 8,
      whiteboardObjectConnection: before.whiteboardObjectConnection + 6,
      whiteboardObjectRelation: before.whiteboardObjectRelation + 2,
      dataStream: before.dataStream,
      whiteboardHighlight: before.whiteboardHighlight,
    });
    expect(await db().whiteboardObject.count({ where: { whiteboardId: target, name: 'web-01' } })).toBe(1);
  });

  it('answers NOT_FOUND for unknown boards and boards of other organizations, and refuses bad documents', async () => {
    const document = await exported('Production platform');
    const before = await counts();
    expectError(
      await server.graphql(importObjectsMutation, { input: { whiteboardId: 999_999, document } }),
      'NOT_FOUND',
    );
    expectError(
      await server.graphql(importObjectsMutation, {
        input: { whiteboardId: await boardId('Distribution network'), document },
      }),
      'NOT_FOUND',
    );
    expectError(
      await server.graphql(importObjectsMutation, {
        input: {
          whiteboardId: await boardId('Data pipeline'),
          document: { ...document, relations: [{ parentObjectId: 1, childObjectId: 1 }] },
        },
      }),
      'BAD_USER_INPUT',
      'input.document.relations[0].childObjectId',
    );
    expectError(
      await server.graphql(
        importObjectsMutation,
        { input: { whiteboardId: await boardId('Data pipeline'), document } },
        server.keys.viewer,
      ),
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });
});
