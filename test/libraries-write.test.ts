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

/** Row counts of every table: a refused change leaves them all as they were. */
const counts = () => countRows(db());

const rowOf = (name: string) => db().library.findFirstOrThrow({ where: { name } });
const classOf = (name: string) => db().classConf.findFirstOrThrow({ where: { name } });

const createLibrary = `mutation($input: CreateLibraryInput!) { createLibrary(input: $input) { library { rowId name authorId organizationId publishedStatus createdAt updatedAt } } }`;
const updateLibrary = `mutation($input: UpdateLibraryInput!) { updateLibrary(input: $input) { library { rowId name description createdAt updatedAt } } }`;
const deleteLibrary = `mutation($input: DeleteLibraryInput!) { deleteLibrary(input: $input) { deletedRowId } }`;
const createClass = `mutation($input: CreateClassConfInput!) { createClassConf(input: $input) { classConf { rowId name libraryId textureId } } }`;
const deleteClass = `mutation($input: DeleteClassConfInput!) { deleteClassConf(input: $input) { deletedRowId } }`;
const createAttribute = `mutation($input: CreateClassConfAttributeInput!) { createClassConfAttribute(input: $input) { classConfAttribute { rowId code order type choices } } }`;
const updateAttribute = `mutation($input: UpdateClassConfAttributeInput!) { updateClassConfAttribute(input: $input) { classConfAttribute { rowId code type choices } } }`;
const createTexture = `mutation($input: CreateTextureInput!) { createTexture(input: $input) { texture { rowId name libraryId lightThemeImage { file } } } }`;
const deleteTexture = `mutation($input: DeleteTextureInput!) { deleteTexture(input: $input) { deletedRowId } }`;

describe('libraries', () => {
  it('creates a library in the active organization, authored by the caller', async () => {
    const { data, errors } = await server.graphql(createLibrary, {
      input: { name: '  Network gear  ', publishedStatus: 'DRAFT' },
    });
    expect(errors).toBeUndefined();
    const owner = await db().user.findFirstOrThrow({ where: { email: 'olivia.owner@acme.example' } });
    expect(data!.createLibrary.library).toMatchObject({
      name: 'Network gear',
      authorId: owner.id,
      organizationId: owner.activeOrganizationId,
      publishedStatus: 'DRAFT',
    });
  });

  it('refuses bad input, naming the field, and changes nothing', async () => {
    const before = await counts();
    expectError(await server.graphql(createLibrary, { input: { name: '   ' } }), 'BAD_USER_INPUT', 'input.name');
    expectError(
      await server.graphql(createLibrary, { input: { name: 'x'.repeat(256) } }),
      'BAD_USER_INPUT',
      'input.name',
    );
    expect(await counts()).toEqual(before);
  });

  it('refuses callers the role matrix does not allow to manage libraries', async () => {
    const before = await counts();
    expectError(
      await server.graphql(createLibrary, { input: { name: 'By a member' } }, server.keys.member),
      'FORBIDDEN',
    );
    expectError(
      await server.graphql(createLibrary, { input: { name: 'By a viewer' } }, server.keys.viewer),
      'FORBIDDEN',
    );
    const infra = await rowOf('Infrastructure');
    expectError(
      await server.graphql(updateLibrary, { input: { rowId: infra.id, name: 'Mine' } }, server.keys.member),
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });

  it('updates a library: updatedAt moves, createdAt does not', async () => {
    const infra = await rowOf('Infrastructure');
    const { data, errors } = await server.graphql(
      updateLibrary,
      { input: { rowId: infra.id, description: 'Hosts and stores.' } },
      server.keys.admin,
    );
    expect(errors).toBeUndefined();
    expect(data!.updateLibrary.library.description).toBe('Hosts and stores.');
    expect(data!.updateLibrary.library.createdAt).toBe(infra.createdAt.toISOString());
    expect(new Date(data!.updateLibrary.library.updatedAt).getTime()).toBeGreaterThan(infra.updatedAt.getTime());
  });

  it('answers NOT_FOUND for unknown ids and for libraries of other organizations', async () => {
    expectError(await server.graphql(updateLibrary, { input: { rowId: 999_999, name: 'Nope' } }), 'NOT_FOUND');
    const logistics = await rowOf('Logistics');
    expectError(await server.graphql(deleteLibrary, { input: { rowId: logistics.id } }), 'NOT_FOUND');
  });

  it('refuses to delete a library whose classes objects use, naming them', async () => {
    const before = await counts();
    const infra = await rowOf('Infrastructure');
    const response = await server.graphql(deleteLibrary, { input: { rowId: infra.id } });
    expectError(response, 'CONFLICT');
    expect(response.errors![0].message).toMatch(/used by \d+ objects on boards .*Production platform/);
    expect(await counts()).toEqual(before);
  });

  it('deletes a library with its classes, attributes and textures in one go', async () => {
    const library = (await server.graphql(createLibrary, { input: { name: 'Short-lived' } })).data!.createLibrary
      .library;
    const texture = (await server.graphql(createTexture, { input: { libraryId: library.rowId, name: 'Card' } })).data!
      .createTexture.texture;
    const classConf = (
      await server.graphql(createClass, {
        input: { libraryId: library.rowId, name: 'Thing', textureId: texture.rowId },
      })
    ).data!.createClassConf.classConf;
    await server.graphql(createAttribute, {
      input: { classConfId: classConf.rowId, name: 'Size', code: 'size', type: 'INTEGER' },
    });
    const { data, errors } = await server.graphql(deleteLibrary, { input: { rowId: library.rowId } });
    expect(errors).toBeUndefined();
    expect(data!.deleteLibrary.deletedRowId).toBe(library.rowId);
    expect(await db().classConf.count({ where: { libraryId: library.rowId } })).toBe(0);
    expect(await db().classTexture.count({ where: { libraryId: library.rowId } })).toBe(0);
    expect(await db().classConfAttribute.count({ where: { classConfId: classConf.rowId } })).toBe(0);
  });
});

describe('class configurations', () => {
  it('creates a class with a texture of the same organization', async () => {
    const infra = await rowOf('Infrastructure');
    const texture = await db().classTexture.findFirstOrThrow({ where: { libraryId: infra.id } });
    const { data, errors } = await server.graphql(createClass, {
      input: { libraryId: infra.id, name: 'Switch', classType: 'SYSTEM', textureId: texture.id },
    });
    expect(errors).toBeUndefined();
    expect(data!.createClassConf.classConf).toMatchObject({
      name: 'Switch',
      libraryId: infra.id,
      textureId: texture.id,
    });
  });

  it('refuses a texture of another organization and an unknown library', async () => {
    const before = await counts();
    const infra = await rowOf('Infrastructure');
    const globexTexture = await db().classTexture.findFirstOrThrow({ where: { library: { name: 'Logistics' } } });
    expectError(
      await server.graphql(createClass, { input: { libraryId: infra.id, name: 'X', textureId: globexTexture.id } }),
      'BAD_USER_INPUT',
      'input.textureId',
    );
    expectError(
      await server.graphql(createClass, { input: { libraryId: 999_999, name: 'X' } }),
      'BAD_USER_INPUT',
      'input.libraryId',
    );
    expectError(
      await server.graphql(createClass, { input: { libraryId: infra.id, name: 'X' } }, server.keys.member),
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });

  it('refuses to delete a class objects use, naming the boards; deletes an unused one', async () => {
    const before = await counts();
    const server_ = await classOf('Server');
    const response = await server.graphql(deleteClass, { input: { rowId: server_.id } });
    expectError(response, 'CONFLICT');
    expect(response.errors![0].message).toMatch(
      /Class Server cannot be deleted: it is used by \d+ objects on boards Data pipeline, Legacy datacenter, Production platform/,
    );
    expect(await counts()).toEqual(before);

    const infra = await rowOf('Infrastructure');
    const unused = (await server.graphql(createClass, { input: { libraryId: infra.id, name: 'Unused' } })).data!
      .createClassConf.classConf;
    expect((await server.graphql(deleteClass, { input: { rowId: unused.rowId } })).errors).toBeUndefined();
    expect(await db().classConf.findUnique({ where: { id: unused.rowId } })).toBeNull();
    expectError(await server.graphql(deleteClass, { input: { rowId: unused.rowId } }), 'NOT_FOUND');
  });
});

describe('class attributes', () => {
  it('puts a new attribute without an order last', async () => {
    const rack = await classOf('Rack');
    const { data, errors } = await server.graphql(createAttribute, {
      input: { classConfId: rack.id, name: 'Power', code: 'powerKw', type: 'FLOAT' },
    });
    expect(errors).toBeUndefined();
    const last = await db().classConfAttribute.aggregate({ where: { classConfId: rack.id }, _max: { order: true } });
    expect(data!.createClassConfAttribute.classConfAttribute.order).toBe(last._max.order);
    expect(data!.createClassConfAttribute.classConfAttribute.order).toBe(3);
  });

  it('refuses a duplicate code, a malformed code and a CHOICE without choices', async () => {
    const before = await counts();
    const rack = await classOf('Rack');
    expectError(
      await server.graphql(createAttribute, { input: { classConfId: rack.id, name: 'Again', code: 'location' } }),
      'BAD_USER_INPUT',
      'input.code',
    );
    expectError(
      await server.graphql(createAttribute, { input: { classConfId: rack.id, name: 'Bad', code: 'has space' } }),
      'BAD_USER_INPUT',
      'input.code',
    );
    expectError(
      await server.graphql(createAttribute, {
        input: { classConfId: rack.id, name: 'Tier', code: 'tier', type: 'CHOICE' },
      }),
      'BAD_USER_INPUT',
      'input.choices',
    );
    expectError(
      await server.graphql(createAttribute, {
        input: { classConfId: rack.id, name: 'Tier', code: 'tier', type: 'CHOICE', choices: ['a', 'a'] },
      }),
      'BAD_USER_INPUT',
      'input.choices',
    );
    const location = await db().classConfAttribute.findFirstOrThrow({
      where: { classConfId: rack.id, code: 'location' },
    });
    expectError(
      await server.graphql(updateAttribute, { input: { rowId: location.id, code: 'units' } }),
      'BAD_USER_INPUT',
      'input.code',
    );
    expectError(
      await server.graphql(updateAttribute, { input: { rowId: location.id, type: 'CHOICE' } }),
      'BAD_USER_INPUT',
      'input.choices',
    );
    expectError(await server.graphql(updateAttribute, { input: { rowId: 999_999, name: 'x' } }), 'NOT_FOUND');
    expectError(
      await server.graphql(updateAttribute, { input: { rowId: location.id, name: 'x' } }, server.keys.viewer),
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });

  it('refuses to change the type of an attribute objects hold values for', async () => {
    const before = await counts();
    const location = await db().classConfAttribute.findFirstOrThrow({ where: { code: 'location' } });
    const response = await server.graphql(updateAttribute, { input: { rowId: location.id, type: 'INTEGER' } });
    expectError(response, 'CONFLICT');
    expect(await counts()).toEqual(before);
    const renamed = await server.graphql(updateAttribute, {
      input: { rowId: location.id, code: 'site', type: 'STRING' },
    });
    expect(renamed.data!.updateClassConfAttribute.classConfAttribute).toMatchObject({ code: 'site', type: 'STRING' });
  });

  it('reorders the attributes of a class atomically', async () => {
    const database = await classOf('Database');
    const ids = (
      await db().classConfAttribute.findMany({ where: { classConfId: database.id }, orderBy: { order: 'asc' } })
    ).map((a) => a.id);
    const reorder = `mutation($input: ReorderClassConfAttributesInput!) { reorderClassConfAttributes(input: $input) { rowId order } }`;
    const reversed = [...ids].reverse();
    const { data, errors } = await server.graphql(reorder, { input: { classConfId: database.id, ids: reversed } });
    expect(errors).toBeUndefined();
    expect(data!.reorderClassConfAttributes.map((a: any) => a.rowId)).toEqual(reversed);
    expect(data!.reorderClassConfAttributes.map((a: any) => a.order)).toEqual([1, 2, 3]);
    expectError(
      await server.graphql(reorder, { input: { classConfId: database.id, ids: ids.slice(1) } }),
      'BAD_USER_INPUT',
      'input.ids',
    );
    expectError(
      await server.graphql(reorder, { input: { classConfId: database.id, ids } }, server.keys.member),
      'FORBIDDEN',
    );
    expectError(await server.graphql(reorder, { input: { classConfId: 999_999, ids } }), 'NOT_FOUND');
    const after = await db().classConfAttribute.findMany({
      where: { classConfId: database.id },
      orderBy: { order: 'asc' },
    });
    expect(after.map((a) => a.id)).toEqual(reversed);
  });

  it('deletes an attribute with the values objects held for it', async () => {
    const notes = await db().classConfAttribute.findFirstOrThrow({ where: { code: 'notes' } });
    const del = `mutation($input: DeleteClassConfAttributeInput!) { deleteClassConfAttribute(input: $input) { deletedRowId } }`;
    expect((await server.graphql(del, { input: { rowId: notes.id } })).errors).toBeUndefined();
    expect(await db().whiteboardObjectAttribute.count({ where: { attributeId: notes.id } })).toBe(0);
  });
});

describe('textures', () => {
  it('creates and updates a texture with images of the same organization', async () => {
    const infra = await rowOf('Infrastructure');
    const image = await db().file.findFirstOrThrow({ where: { organizationId: infra.organizationId } });
    const { data, errors } = await server.graphql(createTexture, {
      input: { libraryId: infra.id, name: 'Switch card', lightThemeImageId: image.id, width: 200, height: 56 },
    });
    expect(errors).toBeUndefined();
    expect(data!.createTexture.texture.lightThemeImage.file).toBe(`/files/${image.file}`);
    const update = `mutation($input: UpdateTextureInput!) { updateTexture(input: $input) { texture { nameFontSize iconVisible } } }`;
    const updated = await server.graphql(update, {
      input: { rowId: data!.createTexture.texture.rowId, nameFontSize: 18, iconVisible: false },
    });
    expect(updated.data!.updateTexture.texture).toEqual({ nameFontSize: 18, iconVisible: false });
    expectError(
      await server.graphql(update, { input: { rowId: data!.createTexture.texture.rowId, nameFontSize: 0 } }),
      'BAD_USER_INPUT',
      'input.nameFontSize',
    );
  });

  it('refuses an image of another organization and callers who may not manage libraries', async () => {
    const before = await counts();
    const infra = await rowOf('Infrastructure');
    const globexImage = await db().file.findFirstOrThrow({ where: { organization: { name: 'Globex Logistics' } } });
    expectError(
      await server.graphql(createTexture, { input: { libraryId: infra.id, darkThemeImageId: globexImage.id } }),
      'BAD_USER_INPUT',
      'input.darkThemeImageId',
    );
    expectError(
      await server.graphql(createTexture, { input: { libraryId: infra.id } }, server.keys.member),
      'FORBIDDEN',
    );
    expect(await counts()).toEqual(before);
  });

  it('refuses to delete a texture classes use, naming them; deletes an unused one', async () => {
    const before = await counts();
    const card = await db().classTexture.findFirstOrThrow({ where: { name: 'Database drum' } });
    const response = await server.graphql(deleteTexture, { input: { rowId: card.id } });
    expectError(response, 'CONFLICT');
    expect(response.errors![0].message).toMatch(/used by class Database, used by \d+ objects on boards/);
    expect(await counts()).toEqual(before);
    expectError(await server.graphql(deleteTexture, { input: { rowId: 999_999 } }), 'NOT_FOUND');

    const infra = await rowOf('Infrastructure');
    const spare = (await server.graphql(createTexture, { input: { libraryId: infra.id, name: 'Spare' } })).data!
      .createTexture.texture;
    expect((await server.graphql(deleteTexture, { input: { rowId: spare.rowId } })).errors).toBeUndefined();
  });
});
