import { tenancyWhere } from '../../auth/tenancy.js';
import { prisma } from '../../db/index.js';
import { builder } from '../builder.js';
import { authorize, recordChange } from '../changes.js';
import { Choice } from '../choices.js';
import { principalOf, type Context } from '../context.js';
import { targetRowId } from '../crud.js';
import { badUserInput, notFound } from '../errors.js';
import { parseAttributeValue, valueColumns } from './attribute-values.js';
import { choicesFor } from './choices.js';
import { changedRow } from '../loaders.js';
import { expectedVersionField, staleConflict, writeAtVersion } from '../versions.js';

const UpdateInput = builder.inputType('UpdateWhiteboardObjectAttributeInput', {
  description:
    'The value to set: name the value row by id or rowId, or the object and the attribute (the row is created if the object has no value yet).',
  fields: (t) => ({
    id: t.id({ description: 'Global id of the value row.' }),
    rowId: t.int({ description: 'Row id of the value row.' }),
    objectId: t.int({ description: 'Row id of the object, with attributeId.' }),
    attributeId: t.int({ description: "Row id of an attribute of the object's class, with objectId." }),
    expectedVersion: expectedVersionField(
      t,
      'Set the value only if its row is at this version (its `version` as last read); otherwise nothing changes and the answer is CONFLICT with the current version and row, both null when the object holds no value row for the attribute (none is made).',
    ),
    value: t.string({
      required: true,
      description:
        'The value as text, read by the attribute type: STRING and TEXT as given, INTEGER and FLOAT as decimal numbers, BOOLEAN as true or false, DATE as YYYY-MM-DD, CHOICE as one of its choices; an empty string clears it.',
    }),
  }),
});

const Payload = builder.objectRef<{ rowId: number }>('UpdateWhiteboardObjectAttributePayload').implement({
  fields: (t) => ({
    whiteboardObjectAttribute: t.prismaField({
      type: 'WhiteboardObjectAttribute',
      resolve: (query, payload) => changedRow('WhiteboardObjectAttribute', query, payload.rowId),
    }),
  }),
});

type Input = typeof UpdateInput.$inferInput;

/** The object and attribute a value update is about, from the value row or given directly. */
async function valueTarget(ctx: Context, input: Input): Promise<{ objectId: number; attributeId: number }> {
  if (input.id == null && input.rowId == null) {
    if (input.objectId == null || input.attributeId == null)
      throw badUserInput('give id, rowId, or objectId and attributeId', 'input.objectId');
    return { objectId: input.objectId, attributeId: input.attributeId };
  }
  const rowId = targetRowId(input, 'WhiteboardObjectAttribute');
  const row = await prisma().whiteboardObjectAttribute.findFirst({
    where: { id: rowId, ...tenancyWhere('WhiteboardObjectAttribute', principalOf(ctx)) },
    select: { objectId: true, attributeId: true },
  });
  if (!row) throw notFound('Whiteboard object attribute');
  return row;
}

builder.mutationField('updateWhiteboardObjectAttribute', (t) =>
  t.field({
    type: Payload,
    description: "Sets an object's value for one attribute of its class, checked against the attribute's type.",
    args: { input: t.arg({ type: UpdateInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { objectId, attributeId } = await valueTarget(ctx, input);
      const object = await prisma().whiteboardObject.findFirst({
        where: { id: objectId, ...tenancyWhere('WhiteboardObject', principalOf(ctx)) },
        select: {
          whiteboard: { select: { organizationId: true } },
          classConf: {
            select: {
              attributes: {
                where: { id: attributeId },
                select: { name: true, type: true, choices: true, isRequired: true },
              },
            },
          },
        },
      });
      if (!object) throw notFound('Whiteboard object');
      const organizationId = object.whiteboard.organizationId;
      authorize(ctx, 'editContent', organizationId);
      const attribute = object.classConf?.attributes[0];
      if (!attribute)
        throw badUserInput(`attribute ${attributeId} is not an attribute of the object's class`, 'input.attributeId');
      const value = parseAttributeValue(attribute, input.value, 'input.value');
      if (value === null && attribute.isRequired)
        throw badUserInput(`${attribute.name} is required and cannot be cleared`, 'input.value');
      const columns = valueColumns(attribute.type, value);
      const where = { objectId_attributeId: { objectId, attributeId } };
      const row = await recordChange(
        ctx,
        { method: 'UPDATE', entityType: 'WhiteboardObjectAttribute', organizationId },
        (tx) =>
          input.expectedVersion == null
            ? tx.whiteboardObjectAttribute.upsert({
                where,
                create: { objectId, attributeId, ...columns },
                update: columns,
                select: { id: true },
              })
            : // A version expected is of a row read: there is no row to create, only one to update.
              writeAtVersion(
                input.expectedVersion,
                (version) =>
                  tx.whiteboardObjectAttribute.update({
                    where: { ...where, ...version },
                    data: columns,
                    select: { id: true },
                  }),
                async () => {
                  const current = await tx.whiteboardObjectAttribute.findUnique({ where });
                  throw staleConflict('WhiteboardObjectAttribute', 'Whiteboard object attribute', current);
                },
              ),
      );
      return { rowId: row.id };
    },
  }),
);

builder.queryField('whiteboardObjectAttributeCodeChoices', (t) =>
  t.field({
    type: [Choice],
    description:
      'Attribute codes (labelled with their names) of one class, or of the classes used on one board; give exactly one of them.',
    args: { whiteboardId: t.arg.int(), classConfId: t.arg.int() },
    resolve: (_root, args, ctx) => {
      if ((args.whiteboardId == null) === (args.classConfId == null))
        throw badUserInput('give either whiteboardId or classConfId', 'whiteboardId');
      const source =
        args.whiteboardId != null
          ? {
              model: 'Whiteboard' as const,
              rowId: args.whiteboardId,
              label: 'Whiteboard',
              where: {
                classConf: {
                  objects: {
                    some: { whiteboardId: args.whiteboardId, ...tenancyWhere('WhiteboardObject', principalOf(ctx)) },
                  },
                },
              },
            }
          : {
              model: 'ClassConf' as const,
              rowId: args.classConfId!,
              label: 'Class configuration',
              where: { classConfId: args.classConfId! },
            };
      const codes = prisma()
        .classConfAttribute.groupBy({
          by: ['code'],
          where: { AND: [source.where, tenancyWhere('ClassConfAttribute', principalOf(ctx))] },
          _min: { name: true },
          orderBy: { code: 'asc' },
        })
        .then((rows) => rows.map((row) => ({ value: row.code, label: row._min.name ?? row.code })));
      return choicesFor(ctx, source, codes);
    },
  }),
);

builder.queryField('whiteboardObjectAttributeValueStrChoices', (t) =>
  t.field({
    type: [Choice],
    description: 'The distinct non-empty string values objects hold for one attribute, in order.',
    args: { attributeId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => {
      const values = prisma()
        .whiteboardObjectAttribute.groupBy({
          by: ['valueStr'],
          where: {
            AND: [
              { attributeId: args.attributeId, valueStr: { not: null } },
              { NOT: { valueStr: '' } },
              tenancyWhere('WhiteboardObjectAttribute', principalOf(ctx)),
            ],
          },
          orderBy: { valueStr: 'asc' },
        })
        .then((rows) => rows.map((row) => ({ value: row.valueStr!, label: row.valueStr! })));
      return choicesFor(
        ctx,
        { model: 'ClassConfAttribute', rowId: args.attributeId, label: 'Class attribute' },
        values,
      );
    },
  }),
);
