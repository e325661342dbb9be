import type { ClassConfAttributeType } from '../../generated/prisma/enums.js';
import { builder, type InputFields } from '../builder.js';
import { authorize, findForChange, recordChange, type Transaction } from '../changes.js';
import { principalOf, type Context } from '../context.js';
import { badUserInput, forbidden } from '../errors.js';
import { assertStorable } from '../storable.js';
import { readAttributeValue, valueColumns, type ValueColumns } from '../objects/attribute-values.js';
import { readDocument, ROOT, type WhiteboardDocument } from './document.js';
import { changedRow } from '../loaders.js';

interface ClassAttribute {
  id: number;
  type: ClassConfAttributeType;
  choices: string[];
}

/** The value columns of a document value, or why it does not fit the attribute (its JSON type must match too). */
function documentValueColumns(attribute: ClassAttribute, value: unknown, path: string): ValueColumns {
  const expected =
    attribute.type === 'INTEGER' || attribute.type === 'FLOAT'
      ? 'number'
      : attribute.type === 'BOOLEAN'
        ? 'boolean'
        : 'string';
  if (typeof value !== expected)
    throw badUserInput(`${path.slice('input.'.length)} must be a ${expected} for a ${attribute.type} attribute`, path);
  const read = readAttributeValue(attribute, String(value));
  if ('error' in read) throw badUserInput(`${path.slice('input.'.length)}: ${read.error}`, path);
  return valueColumns(attribute.type, read.value);
}

/**
 * Checks the document's references to the organization's classes and attributes, and turns its
 * values into value columns: one statement for every class the document names.
 */
async function resolveClasses(tx: Transaction, document: WhiteboardDocument, organizationId: number) {
  const classIds = [
    ...new Set([...document.objects.map((o) => o.classConfId), ...document.highlights.map((h) => h.classConfId)]),
  ].filter((id) => id !== null);
  const rows = await tx.classConf.findMany({
    where: { id: { in: classIds }, library: { organizationId } },
    select: { id: true, attributes: { select: { id: true, code: true, type: true, choices: true } } },
  });
  const classes = new Map(
    rows.map((row) => [row.id, new Map(row.attributes.map((attribute) => [attribute.code, attribute]))]),
  );
  const classAt = (id: number, path: string) => {
    const attributes = classes.get(id);
    if (!attributes)
      throw badUserInput(`${path.slice('input.'.length)}: class ${id} is not a class of this organization`, path);
    return attributes;
  };
  const attributeAt = (attributes: Map<string, ClassAttribute>, code: string, classId: number, path: string) => {
    const attribute = attributes.get(code);
    if (!attribute)
      throw badUserInput(`${path.slice('input.'.length)}: class ${classId} has no attribute with code ${code}`, path);
    return attribute;
  };

  const values = document.objects.map((object, index) => {
    const at = `${ROOT}.objects[${index}]`;
    const entries = Object.entries(object.attributes);
    if (object.classConfId === null) {
      if (entries.length > 0)
        throw badUserInput(
          `objects[${index}].attributes: an object without a class holds no attribute values`,
          `${at}.attributes`,
        );
      return [];
    }
    const attributes = classAt(object.classConfId, `${at}.classConfId`);
    return entries.map(([code, value]) => {
      const attribute = attributeAt(attributes, code, object.classConfId!, `${at}.attributes.${code}`);
      return { attributeId: attribute.id, ...documentValueColumns(attribute, value, `${at}.attributes.${code}`) };
    });
  });
  const highlightAttributes = document.highlights.map((highlight, index) => {
    const at = `${ROOT}.highlights[${index}]`;
    return attributeAt(
      classAt(highlight.classConfId, `${at}.classConfId`),
      highlight.attributeCode,
      highlight.classConfId,
      `${at}.attributeCode`,
    ).id;
  });
  return { values, highlightAttributes };
}

/** Writes the document's objects with their instances, values, connections and relations onto a board; gives the new ids of its connections. */
async function insertObjects(
  tx: Transaction,
  document: WhiteboardDocument,
  whiteboardId: number,
  authorId: number,
  values: Awaited<ReturnType<typeof resolveClasses>>['values'],
) {
  // createManyAndReturn gives the rows back in the order of `data`, so the document's ids map by position.
  const objects = document.objects.length
    ? await tx.whiteboardObject.createManyAndReturn({
        select: { id: true },
        data: document.objects.map((o) => ({
          whiteboardId,
          authorId,
          classConfId: o.classConfId,
          name: o.name,
          description: o.description,
        })),
      })
    : [];
  const objectIds = new Map(document.objects.map((object, index) => [object.id, objects[index].id]));
  const instances = document.objects.flatMap((object, index) =>
    object.instances.map((instance) => ({ objectId: objects[index].id, ...instance })),
  );
  if (instances.length) await tx.whiteboardObjectInstance.createMany({ data: instances });
  const attributeRows = values.flatMap((rows, index) => rows.map((row) => ({ objectId: objects[index].id, ...row })));
  if (attributeRows.length) await tx.whiteboardObjectAttribute.createMany({ data: attributeRows });
  const connections = document.objectConnections.length
    ? await tx.whiteboardObjectConnection.createManyAndReturn({
        select: { id: true },
        data: document.objectConnections.map(({ id: _id, sourceObjectId, targetObjectId, ...fields }) => ({
          whiteboardId,
          sourceObjectId: objectIds.get(sourceObjectId)!,
          targetObjectId: objectIds.get(targetObjectId)!,
          ...fields,
        })),
      })
    : [];
  if (document.relations.length) {
    await tx.whiteboardObjectRelation.createMany({
      data: document.relations.map((r) => ({
        parentObjectId: objectIds.get(r.parentObjectId)!,
        childObjectId: objectIds.get(r.childObjectId)!,
      })),
    });
  }
  return new Map(document.objectConnections.map((connection, index) => [connection.id, connections[index].id]));
}

/** Streams with their slides and steps, and highlight groups with their highlights, of a new board. */
async function insertBoardParts(
  tx: Transaction,
  document: WhiteboardDocument,
  whiteboardId: number,
  authorId: number,
  connectionIds: Map<number, number>,
  highlightAttributes: number[],
) {
  const streams = document.dataStreams.length
    ? await tx.dataStream.createManyAndReturn({
        select: { id: true },
        data: document.dataStreams.map(({ slides: _slides, connections: _connections, ...fields }) => ({
          whiteboardId,
          authorId,
          ...fields,
        })),
      })
    : [];
  const slides = document.dataStreams.flatMap((stream, index) =>
    stream.slides.map((slide, position) => ({
      dataStreamId: streams[index].id,
      authorId,
      order: position + 1,
      ...slide,
    })),
  );
  if (slides.length) await tx.slide.createMany({ data: slides });
  const steps = document.dataStreams.flatMap((stream, index) =>
    stream.connections.map((step, position) => ({
      dataStreamId: streams[index].id,
      order: position + 1,
      objectConnectionId: connectionIds.get(step.objectConnectionId)!,
      direction: step.direction,
      description: step.description,
    })),
  );
  if (steps.length) await tx.dataStreamConnection.createMany({ data: steps });
  const groups = document.highlightGroups.length
    ? await tx.whiteboardHighlightGroup.createManyAndReturn({
        select: { id: true },
        data: document.highlightGroups.map(({ name, isActive }) => ({ whiteboardId, name, isActive })),
      })
    : [];
  const groupIds = new Map(document.highlightGroups.map((group, index) => [group.id, groups[index].id]));
  if (document.highlights.length) {
    await tx.whiteboardHighlight.createMany({
      data: document.highlights.map(({ attributeCode: _code, groupId, ...fields }, index) => ({
        whiteboardId,
        ...fields,
        attributeId: highlightAttributes[index],
        groupId: groupId === null ? null : groupIds.get(groupId)!,
      })),
    });
  }
}

const ImportPayload = builder
  .objectRef<{ whiteboardId: number; objects: number }>('ImportWhiteboardPayload')
  .implement({
    fields: (t) => ({
      whiteboard: t.prismaField({
        type: 'Whiteboard',
        resolve: (query, payload) => changedRow('Whiteboard', query, payload.whiteboardId),
      }),
      importedObjects: t.exposeInt('objects', { description: 'How many objects the document brought.' }),
    }),
  });

// Legacy clients upload the document as a file; GraphQL clients send it inline.
const documentFields = (t: InputFields) => ({
  document: t.field({ type: 'JSON', description: 'A document as exportWhiteboard gives it; or give file.' }),
  file: t.field({ type: 'Upload', description: 'The document as an uploaded JSON file; or give document.' }),
});

const ImportWhiteboardInput = builder.inputType('ImportWhiteboardInput', { fields: (t) => documentFields(t) });

const ImportWhiteboardObjectsInput = builder.inputType('ImportWhiteboardObjectsInput', {
  fields: (t) => ({
    whiteboardId: t.int({ required: true, description: 'Row id of the board that receives the objects.' }),
    ...documentFields(t),
  }),
});

/** The document of an import input, inline or from its uploaded file. */
async function documentOf(input: { document?: unknown; file?: File | null }): Promise<unknown> {
  if ((input.document == null) === (input.file == null))
    throw badUserInput('give either document or file', 'input.document');
  if (input.file == null) return input.document;
  let document: unknown;
  try {
    document = JSON.parse(await input.file.text());
  } catch {
    throw badUserInput('file is not a JSON document', 'input.file');
  }
  // The file's content met no argument check: its values meet the same one here.
  assertStorable(document, 'input.document');
  return document;
}

function activeOrganization(ctx: Context): number {
  const organizationId = principalOf(ctx).activeOrganizationId;
  if (organizationId == null) throw forbidden('Switch to an organization before importing');
  return organizationId;
}

builder.mutationField('importWhiteboard', (t) =>
  t.field({
    type: ImportPayload,
    description:
      'Creates a new board in the active organization from an exported document, in one transaction; a document that does not validate changes nothing.',
    args: { input: t.arg({ type: ImportWhiteboardInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const organizationId = activeOrganization(ctx);
      authorize(ctx, 'editContent', organizationId);
      const document = readDocument(await documentOf(input), true);
      const authorId = principalOf(ctx).userId;
      const board = await recordChange(
        ctx,
        { method: 'CREATE', entityType: 'Whiteboard', organizationId },
        async (tx) => {
          const { values, highlightAttributes } = await resolveClasses(tx, document, organizationId);
          const created = await tx.whiteboard.create({
            data: { ...document.whiteboard, authorId, organizationId },
            select: { id: true },
          });
          const connectionIds = await insertObjects(tx, document, created.id, authorId, values);
          await insertBoardParts(tx, document, created.id, authorId, connectionIds, highlightAttributes);
          return created;
        },
      );
      return { whiteboardId: board.id, objects: document.objects.length };
    },
  }),
);

builder.mutationField('importWhiteboardObjects', (t) =>
  t.field({
    type: ImportPayload,
    description:
      "Adds the objects of an exported document (with their instances, values, connections and relations) to a board, in one transaction; the document's streams and highlights are not imported.",
    args: { input: t.arg({ type: ImportWhiteboardObjectsInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const board = await findForChange(ctx, 'Whiteboard', input.whiteboardId, 'Whiteboard');
      authorize(ctx, 'editContent', board.organizationId);
      const document = readDocument(await documentOf(input), false);
      await recordChange(
        ctx,
        { method: 'UPDATE', entityType: 'Whiteboard', organizationId: board.organizationId },
        async (tx) => {
          const { values } = await resolveClasses(tx, document, board.organizationId);
          await insertObjects(tx, document, board.id, principalOf(ctx).userId, values);
          // Prisma moves updatedAt only on an update of the row itself.
          return tx.whiteboard.update({
            where: { id: board.id },
            data: { updatedAt: new Date() },
            select: { id: true },
          });
        },
      );
      return { whiteboardId: board.id, objects: document.objects.length };
    },
  }),
);
