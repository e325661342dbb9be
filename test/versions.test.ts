import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationPath, type OrganizationScopedModel } from '../src/auth/tenancy.js';
import { delegateOf } from '../src/db/delegate.js';
import { demo } from '../src/db/seed/index.js';
import { lowerFirst } from '../src/schema/case.js';
import { expectNothingChanged, failure } from './helpers/changes.js';
import { countConcurrently } from './helpers/counter.js';
import { ofTheRequest, startTestServer, type TestServer } from './helpers/server.js';

// Row versions (issue 41): every update raises a row's version; expectedVersion makes a write
// conditional on it, and a mismatch changes nothing and answers CONFLICT with the current row.

let server: TestServer;
let acme = 0;
beforeAll(async () => {
  server = await startTestServer();
  acme = (await prisma().organization.findFirstOrThrow({ where: { name: demo.organizations.acme.name } })).id;
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;

/** A where reaching the rows of `model` in the organization `id`, along its ownership path. */
const inOrganization = (model: OrganizationScopedModel, id: number) =>
  organizationPath(model).reduceRight<unknown>((inner, key) => ({ [key]: inner }), id) as { id: number };

/** An Acme row of the model, as the database holds it. */
async function acmeRow(model: OrganizationScopedModel) {
  const [row] = await delegateOf(prisma(), model).findMany({ where: inOrganization(model, acme), take: 1 });
  return row as { id: number; version: number };
}

// Every update<Type> of the CRUD toolkit, by the model it writes: one statement or a transaction (with checks across rows).
const named = { name: 'Versioned' };
const updatable: [type: string, model: OrganizationScopedModel, change: Record<string, unknown>][] = [
  ['Organization', 'Organization', named],
  ['Whiteboard', 'Whiteboard', named],
  ['DataStream', 'DataStream', named],
  ['DataStreamConnection', 'DataStreamConnection', { description: 'Versioned' }],
  ['Slide', 'Slide', named],
  ['WhiteboardObject', 'WhiteboardObject', named],
  ['WhiteboardObjectInstance', 'WhiteboardObjectInstance', { x: 1 }],
  ['WhiteboardObjectConnection', 'WhiteboardObjectConnection', named],
  ['WhiteboardHighlightGroup', 'WhiteboardHighlightGroup', named],
  ['WhiteboardHighlight', 'WhiteboardHighlight', named],
  ['Library', 'Library', named],
  ['ClassConf', 'ClassConf', named],
  ['ClassConfAttribute', 'ClassConfAttribute', named],
  ['Texture', 'ClassTexture', named],
];

const updateOf = (type: string) =>
  `mutation($input: Update${type}Input!) { update${type}(input: $input) { ${lowerFirst(type)} { rowId version } } }`;

describe('versions', () => {
  it.each(updatable)(
    'update%s raises the version by one, at the expected version or at none',
    async (type, model, change) => {
      const row = await acmeRow(model);
      const expected = await server.graphql(updateOf(type), {
        input: { rowId: row.id, ...change, expectedVersion: row.version },
      });
      expect(expected.errors).toBeUndefined();
      expect(expected.data![`update${type}`][lowerFirst(type)]).toEqual({ rowId: row.id, version: row.version + 1 });
      const unconditional = await server.graphql(updateOf(type), { input: { rowId: row.id, ...change } });
      expect(unconditional.data![`update${type}`][lowerFirst(type)].version).toBe(row.version + 2);
      expect((await acmeRow(model)).version).toBe(row.version + 2);
    },
  );

  it.each(updatable)(
    'update%s at a stale version changes nothing and answers CONFLICT with the current row',
    async (type, model, change) => {
      const row = await acmeRow(model);
      const stale = await expectNothingChanged(
        server,
        () => server.graphql(updateOf(type), { input: { rowId: row.id, ...change, expectedVersion: row.version - 1 } }),
        () => acmeRow(model),
      );
      expect(failure(stale)).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
      const { currentVersion, current } = stale.errors![0].extensions as Record<string, any>;
      expect(currentVersion).toBe(row.version);
      expect(current).toMatchObject({ id: row.id, version: row.version });
    },
  );

  it('the one-statement update checks the version in its one statement, matched or not', async () => {
    const board = await acmeRow('Whiteboard');
    const rename = (expectedVersion: number) =>
      server.countStatements(() =>
        server.graphql(updateOf('Whiteboard'), { input: { rowId: board.id, name: 'Renamed', expectedVersion } }),
      );
    const matched = await rename(board.version);
    expect(matched.result.errors).toBeUndefined();
    expect(ofTheRequest(matched.statements)).toHaveLength(1);
    const refused = await rename(board.version);
    expect(failure(refused.result)).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
    expect(refused.result.errors![0].extensions!.current).toMatchObject({
      name: 'Renamed',
      version: board.version + 1,
    });
    expect(ofTheRequest(refused.statements)).toHaveLength(1);
  });

  it('archiving checks the expected version too', async () => {
    const board = await acmeRow('Whiteboard');
    const archive = `mutation($input: WhiteboardArchiveInput!) { archiveWhiteboard(input: $input) { whiteboard { inTheArchive version } } }`;
    const stale = await server.graphql(archive, { input: { rowId: board.id, expectedVersion: board.version + 1 } });
    expect(failure(stale)).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
    const archived = await server.graphql(archive, { input: { rowId: board.id, expectedVersion: board.version } });
    expect(archived.data!.archiveWhiteboard.whiteboard).toEqual({ inTheArchive: true, version: board.version + 1 });
    await prisma().whiteboard.update({ where: { id: board.id }, data: { inTheArchive: false } });
  });

  it('a delete at a stale version deletes nothing; at the current version it deletes', async () => {
    const stream = await acmeRow('DataStream');
    const remove = `mutation($input: DeleteDataStreamInput!) { deleteDataStream(input: $input) { deletedRowId } }`;
    const stale = await expectNothingChanged(server, () =>
      server.graphql(remove, { input: { rowId: stream.id, expectedVersion: stream.version + 1 } }),
    );
    expect(failure(stale)).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
    expect(stale.errors![0].extensions).toMatchObject({ currentVersion: stream.version, current: { id: stream.id } });
    const removed = await server.graphql(remove, { input: { rowId: stream.id, expectedVersion: stream.version } });
    expect(removed.data!.deleteDataStream).toEqual({ deletedRowId: stream.id });
    expect(await prisma().dataStream.findUnique({ where: { id: stream.id } })).toBeNull();
  });

  it('a write the database raises outside the graph (a reorder) raises the version too', async () => {
    const stream = await prisma().dataStream.findFirstOrThrow({
      where: { whiteboard: { organizationId: acme }, slides: { some: {} } },
      include: { slides: { orderBy: { order: 'asc' } } },
    });
    const reorder = `mutation($input: ReorderSlidesInput!) { reorderSlides(input: $input) { rowId order version } }`;
    const ids = stream.slides.map((slide) => slide.id).reverse();
    const answer = await server.graphql(reorder, { input: { dataStreamId: stream.id, ids } });
    expect(answer.errors).toBeUndefined();
    for (const slide of answer.data!.reorderSlides)
      expect(slide.version).toBe(stream.slides.find((before) => before.id === slide.rowId)!.version + 1);
  });
});

describe('moving instances at their versions', () => {
  const move = `mutation($input: MoveWhiteboardObjectInstancesInput!) { moveWhiteboardObjectInstances(input: $input) { whiteboardObjectInstances { rowId x version } } }`;

  it('moves all when every instance is at its expected version, none when one is not', async () => {
    const board = await prisma().whiteboard.findFirstOrThrow({
      where: { objects: { some: { instances: { some: {} } } } },
    });
    const rows = await prisma().whiteboardObjectInstance.findMany({
      where: { object: { whiteboardId: board.id } },
      orderBy: { id: 'asc' },
      take: 3,
    });
    expect(rows).toHaveLength(3);
    const items = (x: number, stale?: number) =>
      rows.map((row, i) => ({ rowId: row.id, x, expectedVersion: i === stale ? row.version + 5 : row.version }));
    const refused = await expectNothingChanged(
      server,
      () => server.graphql(move, { input: { whiteboardId: board.id, instances: items(500, 1) } }),
      () => prisma().whiteboardObjectInstance.findMany({ where: { id: { in: rows.map((row) => row.id) } } }),
    );
    expect(failure(refused)).toEqual({ code: 'CONFLICT', field: 'input.instances[1].expectedVersion' });
    expect(refused.errors![0].extensions).toMatchObject({
      currentVersion: rows[1].version,
      current: { id: rows[1].id },
    });
    const moved = await server.countStatements(() =>
      server.graphql(move, { input: { whiteboardId: board.id, instances: items(600) } }),
    );
    expect(moved.result.data!.moveWhiteboardObjectInstances.whiteboardObjectInstances).toEqual(
      rows.map((row) => ({ rowId: row.id, x: 600, version: row.version + 1 })),
    );
    expect(ofTheRequest(moved.statements)).toHaveLength(1);
  });
});

describe('the lost update, with and without versions', () => {
  it('8 writers adding 1 ten times each: with expectedVersion every increment counts', async () => {
    const board = await prisma().whiteboard.create({
      data: {
        name: 'Counter',
        description: '0',
        authorId: (await prisma().user.findFirstOrThrow({ where: { email: demo.users.owner.email } })).id,
        organizationId: acme,
      },
    });
    const versioned = await countConcurrently(server, board.id, { writers: 8, increments: 10, versioned: true });
    expect(versioned.value).toBe(80);
    await prisma().whiteboard.update({ where: { id: board.id }, data: { description: '0' } });
    // Without it the later of two writes that read the same value wins: at most every increment counts, and nothing tells a writer.
    const unversioned = await countConcurrently(server, board.id, { writers: 8, increments: 10, versioned: false });
    expect(unversioned.conflicts).toBe(0);
    expect(unversioned.value).toBeLessThanOrEqual(80);
  });
});

describe('the mutations outside the CRUD toolkit', () => {
  it('updateMemberRole, removeMember, deleteOrganization and the webhook endpoint writes refuse a stale version', async () => {
    const membership = await prisma().userOrganization.findFirstOrThrow({
      where: { organizationId: acme, role: 'MEMBER' },
    });
    const endpoint = await prisma().webhookEndpoint.create({
      data: { organizationId: acme, url: 'https://hooks.example.com/a', eventTypes: ['*'], secret: 'sealed' },
    });
    const organization = await prisma().organization.findUniqueOrThrow({ where: { id: acme } });
    const stale: [string, string, Record<string, unknown>][] = [
      [
        'updateMemberRole',
        'membership { rowId }',
        { rowId: membership.id, role: 'VIEWER', expectedVersion: membership.version + 1 },
      ],
      ['removeMember', 'deletedRowId', { rowId: membership.id, expectedVersion: membership.version + 1 }],
      [
        'updateWebhookEndpoint',
        'webhookEndpoint { rowId }',
        { rowId: endpoint.id, description: 'x', expectedVersion: 9 },
      ],
      ['deleteWebhookEndpoint', 'deletedRowId', { rowId: endpoint.id, expectedVersion: 9 }],
      [
        'deleteOrganization',
        'deletedRowId',
        { rowId: acme, confirmName: organization.name, expectedVersion: organization.version + 1 },
      ],
    ];
    for (const [mutation, payload, input] of stale) {
      const inputType = `${mutation[0].toUpperCase()}${mutation.slice(1)}Input`;
      const refused = await expectNothingChanged(server, () =>
        server.graphql(`mutation($input: ${inputType}!) { ${mutation}(input: $input) { ${payload} } }`, { input }),
      );
      expect(failure(refused), mutation).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
    }
    const matched = await server.graphql(
      `mutation($input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $input) { webhookEndpoint { version } } }`,
      { input: { rowId: endpoint.id, description: 'checked', expectedVersion: endpoint.version } },
    );
    expect(matched.data!.updateWebhookEndpoint.webhookEndpoint.version).toBe(endpoint.version + 1);
  });
});

describe('the mutations that took no expected version before', () => {
  const updateMe = `mutation($input: UpdateMeInput!) { updateMe(input: $input) { user { rowId version firstName } } }`;
  const switchTo = `mutation($input: UpdateActiveOrganizationInput!) { updateActiveOrganization(input: $input) { user { rowId version organizationId } } }`;
  const setValue = `mutation($input: UpdateWhiteboardObjectAttributeInput!) { updateWhiteboardObjectAttribute(input: $input) { whiteboardObjectAttribute { rowId version valueStr } } }`;
  const reorder = `mutation($input: ReorderSlidesInput!) { reorderSlides(input: $input) { rowId order } }`;
  const enable = (verb: 'enable' | 'disable') =>
    `mutation($input: ${verb === 'enable' ? 'Enable' : 'Disable'}WebhookEndpointInput!) { ${verb}WebhookEndpoint(input: $input) { webhookEndpoint { version enabled } } }`;
  const owner = () => prisma().user.findUniqueOrThrow({ where: { email: demo.users.owner.email } });

  /** Sends a write at a stale version: it changes nothing and is CONFLICT; answers the conflict's extensions. */
  async function refusedAsStale(mutation: string, input: Record<string, unknown>, watched?: () => Promise<unknown>) {
    const refused = await expectNothingChanged(server, () => server.graphql(mutation, { input }), watched);
    expect(failure(refused)).toEqual({ code: 'CONFLICT', field: 'input.expectedVersion' });
    return refused.errors![0].extensions as Record<string, unknown>;
  }

  /** A string value an Acme object holds, and the object's class attribute it is of. */
  const stringValue = () =>
    prisma().whiteboardObjectAttribute.findFirstOrThrow({
      where: { attribute: { type: 'STRING' }, object: { whiteboard: { organizationId: acme } } },
      orderBy: { id: 'asc' },
    });
  const streamWithSlides = () =>
    prisma().dataStream.findFirstOrThrow({
      where: { whiteboard: { organizationId: acme }, slides: { some: {} } },
      include: { slides: { orderBy: [{ order: 'asc' }, { id: 'asc' }] } },
      orderBy: { id: 'asc' },
    });

  it('updateMe and updateActiveOrganization change the caller at its version, and refuse another', async () => {
    const user = await owner();
    const stale = await refusedAsStale(updateMe, { firstName: 'Stale', expectedVersion: user.version + 1 }, owner);
    expect(stale).toMatchObject({
      currentVersion: user.version,
      current: { id: user.id, version: user.version, firstName: user.firstName },
    });
    const renamed = await server.graphql(updateMe, {
      input: { firstName: user.firstName, expectedVersion: user.version },
    });
    expect(renamed.data!.updateMe.user).toEqual({
      rowId: user.id,
      version: user.version + 1,
      firstName: user.firstName,
    });
    const switched = { organizationId: user.activeOrganizationId };
    const refused = await refusedAsStale(switchTo, { ...switched, expectedVersion: user.version }, owner);
    expect(refused.currentVersion).toBe(user.version + 1);
    const done = await server.graphql(switchTo, { input: { ...switched, expectedVersion: user.version + 1 } });
    expect(done.data!.updateActiveOrganization.user.version).toBe(user.version + 2);
  });

  it('updateWhiteboardObjectAttribute updates the value row at its version; with no row, a version expected is CONFLICT with none, and none is made', async () => {
    const value = await stringValue();
    const target = { objectId: value.objectId, attributeId: value.attributeId };
    const stale = await refusedAsStale(
      setValue,
      { ...target, value: 'Stale', expectedVersion: value.version + 1 },
      stringValue,
    );
    expect(stale).toMatchObject({
      currentVersion: value.version,
      current: { id: value.id, version: value.version, valueStr: value.valueStr },
    });
    // By the value row's id too.
    const set = await server.graphql(setValue, {
      input: { rowId: value.id, value: 'Checked', expectedVersion: value.version },
    });
    expect(set.data!.updateWhiteboardObjectAttribute.whiteboardObjectAttribute).toEqual({
      rowId: value.id,
      version: value.version + 1,
      valueStr: 'Checked',
    });
    // Gone (cleared away with a change of class, say): an expected version names a row that is not there.
    await prisma().whiteboardObjectAttribute.delete({ where: { id: value.id } });
    const gone = await refusedAsStale(setValue, { ...target, value: 'Again', expectedVersion: value.version + 1 });
    expect(gone).toMatchObject({ currentVersion: null, current: null });
    // Without one, the value is set as before: the row is made.
    const made = await server.graphql(setValue, { input: { ...target, value: value.valueStr ?? 'Made' } });
    expect(made.data!.updateWhiteboardObjectAttribute.whiteboardObjectAttribute.version).toBe(1);
  });

  it("a reorder checks the parent's version and raises it: a reorder made meanwhile is CONFLICT", async () => {
    const stream = await streamWithSlides();
    const ids = stream.slides.map((slide) => slide.id);
    const first = await server.graphql(reorder, {
      input: { dataStreamId: stream.id, ids: [...ids].reverse(), expectedVersion: stream.version },
    });
    expect(first.errors).toBeUndefined();
    expect((await prisma().dataStream.findUniqueOrThrow({ where: { id: stream.id } })).version).toBe(
      stream.version + 1,
    );
    // A second editor, who read the stream before that reorder, puts its own order.
    const second = await refusedAsStale(
      reorder,
      { dataStreamId: stream.id, ids, expectedVersion: stream.version },
      streamWithSlides,
    );
    expect(second).toMatchObject({
      currentVersion: stream.version + 1,
      current: { id: stream.id, version: stream.version + 1 },
    });
    // Without one, the later reorder wins, as before, and still raises the version.
    expect((await server.graphql(reorder, { input: { dataStreamId: stream.id, ids } })).errors).toBeUndefined();
    expect((await streamWithSlides()).version).toBe(stream.version + 2);
  });

  it('cost as many statements with an expected version as without one', async () => {
    const endpoint = await prisma().webhookEndpoint.create({
      data: {
        organizationId: acme,
        url: 'https://hooks.example.com/v',
        eventTypes: ['*'],
        secret: 'sealed',
        enabled: false,
      },
    });
    const value = await stringValue();
    const stream = await streamWithSlides();
    const cases: [string, string, Record<string, unknown>, () => Promise<{ version: number }>][] = [
      [updateMe, 'updateMe', { firstName: demo.users.owner.firstName }, owner],
      [switchTo, 'updateActiveOrganization', { organizationId: acme }, owner],
      [
        setValue,
        'updateWhiteboardObjectAttribute',
        { objectId: value.objectId, attributeId: value.attributeId, value: 'Counted' },
        stringValue,
      ],
      [
        reorder,
        'reorderSlides',
        { dataStreamId: stream.id, ids: stream.slides.map((slide) => slide.id) },
        streamWithSlides,
      ],
      ...(['enable', 'disable'] as const).map(
        (verb): [string, string, Record<string, unknown>, () => Promise<{ version: number }>] => [
          enable(verb),
          `${verb}WebhookEndpoint`,
          { rowId: endpoint.id },
          () => prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } }),
        ],
      ),
    ];
    for (const [mutation, name, input, row] of cases) {
      // Each after the same one: a switch of organization reads the caller's principal again in the next request.
      await server.graphql(mutation, { input });
      const { version } = await row();
      const checked = await server.countStatements(() =>
        server.graphql(mutation, { input: { ...input, expectedVersion: version } }),
      );
      expect(checked.result.errors, name).toBeUndefined();
      expect((await row()).version, name).toBe(version + 1);
      const plain = await server.countStatements(() => server.graphql(mutation, { input }));
      expect(plain.result.errors, name).toBeUndefined();
      expect(ofTheRequest(checked.statements), name).toHaveLength(ofTheRequest(plain.statements).length);
    }
  });
});
