import { tenancyWhere } from '../auth/tenancy.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { findForChange } from './changes.js';
import { principalOf, type Context } from './context.js';
import { defineCrudMutations, targetRowId, type CrudSpec, longText } from './crud.js';
import { rowIdNode } from './global-id.js';
import { writePlan } from '../write-plans/extension.js';
import { updateRow, writtenRow, type WrittenRow } from './row-update.js';
import { connectionOptions, pageById, withVisibleCursor } from './pagination.js';
import { visibleRelation } from './relations.js';
import { defineRootFields } from './root-fields.js';
import { expectedVersionField, versionOptions } from './versions.js';

builder.prismaNode('Whiteboard', {
  ...rowIdNode('Whiteboard'),
  description: 'A board of an organization: objects and their connections, data streams told as slides.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    authorId: t.exposeInt('authorId'),
    organizationId: t.exposeInt('organizationId'),
    inTheArchive: t.exposeBoolean('inTheArchive'),
    miniDrawingId: t.exposeInt('miniDrawingId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    author: t.prismaField(visibleRelation('Whiteboard', 'author')),
    organization: t.relation('organization'),
    miniDrawing: t.prismaField(visibleRelation('Whiteboard', 'miniDrawing')),
    dataStreams: t.relatedConnection('dataStreams', pageById('DataStream')),
    objects: t.relatedConnection('objects', pageById('WhiteboardObject')),
    objectConnections: t.relatedConnection('objectConnections', pageById('WhiteboardObjectConnection')),
    highlights: t.relatedConnection('highlights', pageById('WhiteboardHighlight')),
    highlightGroups: t.relatedConnection('highlightGroups', pageById('WhiteboardHighlightGroup')),
  }),
});

defineRootFields({
  model: 'Whiteboard',
  list: 'whiteboards',
  single: 'whiteboard',
  filter: {
    name: 'String',
    authorId: 'Int',
    organizationId: 'Int',
    inTheArchive: 'Boolean',
    createdAt: 'DateTime',
    updatedAt: 'DateTime',
  },
  order: ['id', 'name', 'createdAt', 'updatedAt'],
});

builder.queryField('whiteboardClients', (t) =>
  t.prismaConnection({
    type: 'User',
    ...connectionOptions,
    description: 'The users who may open a board: the active members of its organization, whatever their role.',
    args: { rowId: t.arg.int({ required: true, description: 'Row id of the board.' }) },
    resolve: async (query, _root, args, ctx) =>
      prisma().user.findMany({
        ...(await withVisibleCursor('User', query, args, ctx)),
        where: await clientsWhere(ctx, args.rowId),
        orderBy: { id: 'asc' },
      }),
    totalCount: async (_root, args, ctx) => prisma().user.count({ where: await clientsWhere(ctx, args.rowId) }),
  }),
);

async function clientsWhere(ctx: Context, boardRowId: number) {
  const board = await findForChange(ctx, 'Whiteboard', boardRowId, 'Whiteboard');
  return {
    isActive: true,
    memberships: { some: { organizationId: board.organizationId } },
    AND: [tenancyWhere('User', principalOf(ctx))],
  };
}

const WhiteboardPayload = builder.objectRef<WrittenRow<'Whiteboard'>>('WhiteboardPayload').implement({
  fields: (t) => ({
    whiteboard: t.prismaField({
      type: 'Whiteboard',
      resolve: (query, payload) => writtenRow('Whiteboard', query, payload),
    }),
  }),
});

const ArchiveInput = builder.inputType('WhiteboardArchiveInput', {
  fields: (t) => ({
    id: t.id({ description: 'Global id of the board; or give rowId.' }),
    rowId: t.int({ description: 'Row id of the board; or give id.' }),
    expectedVersion: expectedVersionField(t),
  }),
});

/** The board an archive or unarchive names: its global id or its row id (targetRowId checks there is one). */
type Target = { id?: string | null; rowId?: number | null; expectedVersion?: number | null };

// Archiving and unarchiving differ only in the flag they set.
for (const [name, inTheArchive] of [
  ['archiveWhiteboard', true],
  ['unarchiveWhiteboard', false],
] as const) {
  const archive = async (input: Target, ctx: Context) => {
    const rowId = targetRowId(input, 'Whiteboard');
    const row = await updateRow(ctx, {
      model: 'Whiteboard',
      rowId,
      data: { inTheArchive },
      action: 'archive',
      label: 'Whiteboard',
      entityType: 'Whiteboard',
      event: inTheArchive ? 'ARCHIVED' : 'UNARCHIVED',
      expectedVersion: input.expectedVersion,
    });
    return { rowId, row };
  };
  builder.mutationField(name, (t) =>
    t.field({
      type: WhiteboardPayload,
      description: inTheArchive ? 'Moves a board to the archive.' : 'Brings a board back from the archive.',
      args: { input: t.arg({ type: ArchiveInput, required: true }) },
      extensions: writePlan({
        model: 'Whiteboard',
        rowField: 'whiteboard',
        write: async (args, ctx) => (await archive(args.input as Target, ctx)).row,
      }),
      resolve: (_root, { input }, ctx) => archive(input, ctx),
    }),
  );
}

const whiteboardCrud: CrudSpec<'Whiteboard', 'organizationId'> = {
  model: 'Whiteboard',
  typeName: 'Whiteboard',
  label: 'Whiteboard',
  action: 'editContent',
  parent: 'organizationId',
  defaultParent: (ctx) => principalOf(ctx).activeOrganizationId,
  fields: {
    organizationId: { type: 'Int', references: 'Organization', description: 'Defaults to the active organization.' },
    name: { type: 'String', required: true },
    description: longText,
    miniDrawingId: {
      type: 'Int',
      references: 'File',
      description: 'Row id of the preview image, a file of the same organization.',
    },
  },
  onCreate: (_tx, _data, ctx) => ({ authorId: principalOf(ctx).userId }),
  operations: ['create', 'update'],
};
defineCrudMutations(whiteboardCrud);
// Deleting a board takes everything on it (objects, streams, highlights), so the matrix asks more than for editing.
defineCrudMutations({ ...whiteboardCrud, action: 'delete', operations: ['delete'] });
