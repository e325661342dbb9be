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
  server: 0,
  database: 0,
  truck: 0,
  environments: 0,
  pipelineGroup: 0,
  networkHighlight: 0,
};
const attribute = { cpuCores: 0, production: 0, environment: 0, commissioned: 0, notes: 0, engine: 0, plate: 0 };
const highlightId: Record<string, number> = {};

beforeAll(async () => {
  server = await startTestServer();
  const prisma = server.database.prisma;
  const board = async (name: string) => (await prisma.whiteboard.findFirstOrThrow({ where: { name } })).id;
  ids.platform = await board(demo.whiteboards.platform.name);
  ids.pipeline = await board(demo.whiteboards.pipeline.name);
  ids.network = await board(demo.whiteboards.network.name);
  ids.web01 = (await prisma.whiteboardObject.findFirstOrThrow({ where: { name: 'web-01' } })).id;
  ids.api01 = (await prisma.whiteboardObject.findFirstOrThrow({ where: { name: 'api-01' } })).id;
  ids.server = (await prisma.classConf.findFirstOrThrow({ where: { name: 'Server' } })).id;
  ids.database = (await prisma.classConf.findFirstOrThrow({ where: { name: 'Database' } })).id;
  ids.truck = (await prisma.classConf.findFirstOrThrow({ where: { name: 'Truck' } })).id;
  ids.environments = (await prisma.whiteboardHighlightGroup.findFirstOrThrow({ where: { name: 'Environments' } })).id;
  ids.pipelineGroup = (
    await prisma.whiteboardHighlightGroup.findFirstOrThrow({ where: { whiteboardId: ids.pipeline } })
  ).id;
  const attributes = await prisma.classConfAttribute.findMany({
    where: { classConfId: { in: [ids.server, ids.database, ids.truck] } },
  });
  for (const code of Object.keys(attribute) as (keyof typeof attribute)[])
    attribute[code] = attributes.find((row) => row.code === code)!.id;
  for (const highlight of await prisma.whiteboardHighlight.findMany()) highlightId[highlight.name] = highlight.id;
  viewerWriteKey = await keyFor(server, demo.users.viewer.email, 'READ_WRITE');
});
afterAll(() => server?.close());

const prisma = () => server.database.prisma;

const group = {
  create: `mutation($input: CreateWhiteboardHighlightGroupInput!) { createWhiteboardHighlightGroup(input: $input) { whiteboardHighlightGroup { rowId whiteboardId name isActive } } }`,
  update: `mutation($input: UpdateWhiteboardHighlightGroupInput!) { updateWhiteboardHighlightGroup(input: $input) { whiteboardHighlightGroup { rowId name isActive createdAt updatedAt } } }`,
  remove: `mutation($input: DeleteWhiteboardHighlightGroupInput!) { deleteWhiteboardHighlightGroup(input: $input) { deletedRowId } }`,
};
const highlight = {
  create: `mutation($input: CreateWhiteboardHighlightInput!) { createWhiteboardHighlight(input: $input) { whiteboardHighlight { rowId whiteboardId groupId name classConfId attributeId operand value isActive } } }`,
  update: `mutation($input: UpdateWhiteboardHighlightInput!) { updateWhiteboardHighlight(input: $input) { whiteboardHighlight { rowId operand value groupId createdAt updatedAt } } }`,
  remove: `mutation($input: DeleteWhiteboardHighlightInput!) { deleteWhiteboardHighlight(input: $input) { deletedRowId } }`,
};
const check = `query($whiteboardId: Int!) { checkObjectsByHighlights(whiteboardId: $whiteboardId) { highlightId name color objectIds } }`;
const instances = `query($highlightId: Int!, $first: Int) { whiteboardHighlightObjectInstances(highlightId: $highlightId, first: $first) { totalCount edges { node { rowId objectId } } } }`;
const classChoices = `query($whiteboardId: Int!) { whiteboardHighlightClassConfChoices(whiteboardId: $whiteboardId) { value label } }`;
const attributeChoices = `query($classConfId: Int!) { whiteboardHighlightAttributeChoices(classConfId: $classConfId) { value label } }`;

const rule = (input: Record<string, unknown>) => ({
  whiteboardId: ids.platform,
  name: 'Rule',
  classConfId: ids.server,
  attributeId: attribute.cpuCores,
  operand: 'GREATER',
  value: '8',
  ...input,
});

async function marked(whiteboardId: number, key = server.keys.owner): Promise<Record<string, number[]>> {
  const response = await server.graphql(check, { whiteboardId }, key);
  expect(response.errors).toBeUndefined();
  return Object.fromEntries(response.data!.checkObjectsByHighlights.map((entry: any) => [entry.name, entry.objectIds]));
}

describe('highlight groups', () => {
  it('creates, renames, switches off and deletes a group, keeping its highlights ungrouped', async () => {
    const created = await server.graphql(
      group.create,
      { input: { whiteboardId: ids.platform, name: ' Capacity ' } },
      server.keys.member,
    );
    const row = created.data!.createWhiteboardHighlightGroup.whiteboardHighlightGroup;
    expect(row).toMatchObject({ whiteboardId: ids.platform, name: 'Capacity', isActive: true });
    const inGroup = (await server.graphql(highlight.create, { input: rule({ groupId: row.rowId }) })).data!
      .createWhiteboardHighlight.whiteboardHighlight;
    const updated = await server.graphql(group.update, {
      input: { rowId: row.rowId, name: 'Sizing', isActive: false },
    });
    expect(updated.data!.updateWhiteboardHighlightGroup.whiteboardHighlightGroup).toMatchObject({
      name: 'Sizing',
      isActive: false,
    });
    expect(Object.keys(await marked(ids.platform))).not.toContain('Rule');
    expect(
      (await server.graphql(group.remove, { input: { rowId: row.rowId } })).data!.deleteWhiteboardHighlightGroup
        .deletedRowId,
    ).toBe(row.rowId);
    expect(await prisma().whiteboardHighlight.findUnique({ where: { id: inGroup.rowId } })).toMatchObject({
      groupId: null,
    });
    await server.graphql(highlight.remove, { input: { rowId: inGroup.rowId } });
  });

  it('refuses an empty name, an unknown group and callers the matrix refuses, changing nothing', async () => {
    const empty = await expectNothingChanged(server, () =>
      server.graphql(group.create, { input: { whiteboardId: ids.platform, name: '' } }),
    );
    expect(failure(empty)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.name' });
    const foreignBoard = await expectNothingChanged(server, () =>
      server.graphql(group.create, { input: { whiteboardId: ids.network, name: 'x' } }),
    );
    expect(failure(foreignBoard)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.whiteboardId' });
    expect(failure(await server.graphql(group.update, { input: { rowId: 999_999, name: 'x' } })).code).toBe(
      'NOT_FOUND',
    );
    const watched = () => prisma().whiteboardHighlightGroup.findUnique({ where: { id: ids.environments } });
    await expectForbiddenToEach(
      server,
      [server.keys.viewer, viewerWriteKey],
      (key) => server.graphql(group.remove, { input: { rowId: ids.environments } }, key),
      watched,
    );
  });
});

describe('highlights', () => {
  it('creates a rule, changes it (updatedAt moves) and deletes it', async () => {
    const created = await server.graphql(
      highlight.create,
      { input: rule({ name: 'Many cores', groupId: ids.environments }) },
      server.keys.member,
    );
    expect(created.errors).toBeUndefined();
    const row = created.data!.createWhiteboardHighlight.whiteboardHighlight;
    expect(row).toMatchObject({
      whiteboardId: ids.platform,
      groupId: ids.environments,
      classConfId: ids.server,
      operand: 'GREATER',
      value: '8',
      isActive: true,
    });
    expect((await marked(ids.platform))['Many cores']).toEqual([ids.api01]);

    const updated = await server.graphql(highlight.update, {
      input: { rowId: row.rowId, operand: 'GREATER_OR_EQUAL', groupId: null },
    });
    const after = updated.data!.updateWhiteboardHighlight.whiteboardHighlight;
    expect(after).toMatchObject({ operand: 'GREATER_OR_EQUAL', groupId: null });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(after.createdAt));
    expect((await marked(ids.platform))['Many cores']).toEqual([ids.web01, ids.api01]);

    expect(
      (await server.graphql(highlight.remove, { input: { rowId: row.rowId } })).data!.deleteWhiteboardHighlight
        .deletedRowId,
    ).toBe(row.rowId);
  });

  it('refuses a rule whose parts do not fit together, naming the field, changing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [rule({ attributeId: attribute.engine }), 'input.attributeId'],
      [rule({ classConfId: ids.truck, attributeId: attribute.plate }), 'input.classConfId'],
      [rule({ groupId: ids.pipelineGroup }), 'input.groupId'],
      [rule({ value: 'many' }), 'input.value'],
      [rule({ value: '' }), 'input.value'],
      [rule({ operand: 'CONTAINS' }), 'input.operand'],
      [rule({ attributeId: attribute.production, operand: 'GREATER', value: 'true' }), 'input.operand'],
      [rule({ attributeId: attribute.environment, operand: 'EQUAL', value: 'qa' }), 'input.value'],
      [rule({ attributeId: attribute.commissioned, operand: 'LESS', value: 'yesterday' }), 'input.value'],
      [rule({ name: ' ' }), 'input.name'],
    ];
    for (const [input, field] of cases) {
      const response = await expectNothingChanged(server, () => server.graphql(highlight.create, { input }));
      expect(failure(response), JSON.stringify(input)).toEqual({ code: 'BAD_USER_INPUT', field });
    }
    const existing = highlightId['Large memory'];
    const watched = () => prisma().whiteboardHighlight.findUnique({ where: { id: existing } });
    const operand = await expectNothingChanged(
      server,
      () => server.graphql(highlight.update, { input: { rowId: existing, operand: 'CONTAINS' } }),
      watched,
    );
    expect(failure(operand)).toEqual({ code: 'BAD_USER_INPUT', field: 'input.operand' });
  });

  it('answers NOT_FOUND for an unknown highlight and one of another organization', async () => {
    expect(failure(await server.graphql(highlight.update, { input: { rowId: 999_999, name: 'x' } })).code).toBe(
      'NOT_FOUND',
    );
    const foreign = await expectNothingChanged(server, () =>
      server.graphql(highlight.remove, { input: { rowId: highlightId['In maintenance'] } }),
    );
    expect(failure(foreign).code).toBe('NOT_FOUND');
  });

  it('is refused to a read-only key and to the viewer role, changing nothing', async () => {
    await expectForbiddenToEach(server, [server.keys.viewer, viewerWriteKey], (key) =>
      server.graphql(highlight.create, { input: rule({}) }, key),
    );
  });
});

describe('checking objects by highlights', () => {
  it('marks the objects of each active highlight of a board; inactive highlights and groups do not count', async () => {
    expect(await marked(ids.platform, server.keys.viewer)).toEqual({
      'Production servers': [ids.web01, ids.api01],
      'Large memory': [ids.api01],
      'Internal hosts': [ids.web01, ids.api01],
    });
    const pipeline = await marked(ids.pipeline);
    expect(pipeline['Slow steps']).toHaveLength(1);
    expect(pipeline['Small databases']).toEqual([]);
    expect(Object.keys(await marked(ids.network, server.keys.member)).sort()).toEqual([
      'Has a due date',
      'Heavy shipments',
      'In maintenance',
      'Reefers',
    ]);
  });

  it('compares dates, and treats a missing value as empty and as not equal', async () => {
    const dated = (
      await server.graphql(highlight.create, {
        input: rule({ name: 'Old', attributeId: attribute.commissioned, operand: 'LESS', value: '2025-05-01' }),
      })
    ).data!.createWhiteboardHighlight.whiteboardHighlight;
    const otherNotes = (
      await server.graphql(highlight.create, {
        input: rule({ name: 'Other notes', attributeId: attribute.notes, operand: 'NOT_EQUAL', value: 'x' }),
      })
    ).data!.createWhiteboardHighlight.whiteboardHighlight;
    const board = await marked(ids.platform);
    expect(board.Old).toEqual([ids.web01]);
    expect(board['Other notes']).toEqual([ids.web01, ids.api01]);
    await server.graphql(highlight.remove, { input: { rowId: dated.rowId } });
    await server.graphql(highlight.remove, { input: { rowId: otherNotes.rowId } });
  });

  it('costs the same few statements whatever the number of highlights and objects', async () => {
    await marked(ids.platform);
    const before = await server.countStatements(() => marked(ids.platform));
    const added: number[] = [];
    for (let i = 0; i < 5; i++) {
      added.push(
        (await server.graphql(highlight.create, { input: rule({ name: `Extra ${i}`, value: String(i) }) })).data!
          .createWhiteboardHighlight.whiteboardHighlight.rowId,
      );
    }
    const authorId = (await prisma().whiteboardObject.findUniqueOrThrow({ where: { id: ids.web01 } })).authorId;
    await prisma().whiteboardObject.createMany({
      data: [1, 2, 3].map((i) => ({
        whiteboardId: ids.platform,
        classConfId: ids.server,
        authorId,
        name: `spare-${i}`,
      })),
    });
    const after = await server.countStatements(() => marked(ids.platform));
    expect(ofTheRequest(after.statements).length).toBe(ofTheRequest(before.statements).length);
    expect(ofTheRequest(after.statements).length).toBeLessThanOrEqual(2);
    for (const rowId of added) await server.graphql(highlight.remove, { input: { rowId } });
    await prisma().whiteboardObject.deleteMany({ where: { name: { startsWith: 'spare-' } } });
  });

  it('answers NOT_FOUND for an unknown board and one of another organization', async () => {
    expect(failure(await server.graphql(check, { whiteboardId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(check, { whiteboardId: ids.network })).code).toBe('NOT_FOUND');
  });
});

describe('object instances of a highlight', () => {
  it('pages the drawings of the objects one highlight marks, active or not, with their total', async () => {
    const production = await server.graphql(
      instances,
      { highlightId: highlightId['Production servers'], first: 1 },
      server.keys.viewer,
    );
    expect(production.errors).toBeUndefined();
    expect(production.data!.whiteboardHighlightObjectInstances.totalCount).toBe(2);
    expect(production.data!.whiteboardHighlightObjectInstances.edges).toHaveLength(1);
    const withoutNotes = await server.graphql(instances, { highlightId: highlightId['Without notes'] });
    expect(withoutNotes.data!.whiteboardHighlightObjectInstances.edges.map((edge: any) => edge.node.objectId)).toEqual([
      ids.api01,
    ]);
    const notReplicated = await server.graphql(instances, { highlightId: highlightId['Not replicated'] });
    expect(notReplicated.data!.whiteboardHighlightObjectInstances.totalCount).toBe(0);
  });

  it('answers NOT_FOUND for an unknown highlight and one of another organization', async () => {
    expect(failure(await server.graphql(instances, { highlightId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(instances, { highlightId: highlightId.Reefers })).code).toBe('NOT_FOUND');
  });
});

describe('rule choices', () => {
  it('lists the classes used on a board and the attributes of a class in their order', async () => {
    const classes = await server.graphql(classChoices, { whiteboardId: ids.platform }, server.keys.viewer);
    expect(classes.data!.whiteboardHighlightClassConfChoices.map((choice: any) => choice.label)).toEqual([
      'Database',
      'Operator',
      'Process step',
      'Rack',
      'Server',
    ]);
    expect(classes.data!.whiteboardHighlightClassConfChoices).toContainEqual({
      value: String(ids.server),
      label: 'Server',
    });
    const attributes = await server.graphql(attributeChoices, { classConfId: ids.database });
    expect(attributes.data!.whiteboardHighlightAttributeChoices.map((choice: any) => choice.label)).toEqual([
      'Engine',
      'Size (GB)',
      'Replicated',
    ]);
    expect(attributes.data!.whiteboardHighlightAttributeChoices[0].value).toBe(String(attribute.engine));
  });

  it('answers NOT_FOUND for unknown or foreign boards and classes', async () => {
    expect(failure(await server.graphql(classChoices, { whiteboardId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(classChoices, { whiteboardId: ids.network })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(attributeChoices, { classConfId: 999_999 })).code).toBe('NOT_FOUND');
    expect(failure(await server.graphql(attributeChoices, { classConfId: ids.truck })).code).toBe('NOT_FOUND');
  });
});
