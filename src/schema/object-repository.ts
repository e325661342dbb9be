import { tenancyWhere } from '../auth/tenancy.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { Choice } from './choices.js';
import { defineCrudMutations, longText } from './crud.js';
import { rowIdNode } from './global-id.js';
import { defineRootFields } from './root-fields.js';
import { principalOf } from './context.js';
import { visibleRelation } from './relations.js';
import { versionOptions } from './versions.js';

builder.prismaNode('ObjectRepositoryEntry', {
  ...rowIdNode('ObjectRepositoryEntry'),
  description:
    'An object published to its organization\'s repository for reuse on other boards. The legacy "new" list is `objectRepositoryEntries(orderBy: [{ field: createdAt, direction: DESC }])`.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    organizationId: t.exposeInt('organizationId'),
    objectId: t.exposeInt('objectId'),
    authorId: t.exposeInt('authorId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
    object: t.prismaField(visibleRelation('ObjectRepositoryEntry', 'object')),
    author: t.prismaField(visibleRelation('ObjectRepositoryEntry', 'author')),
  }),
});

defineRootFields({
  model: 'ObjectRepositoryEntry',
  list: 'objectRepositoryEntries',
  single: 'objectRepositoryEntry',
  filter: { name: 'String', organizationId: 'Int', objectId: 'Int', authorId: 'Int', createdAt: 'DateTime' },
  order: ['id', 'name', 'createdAt'],
});

defineCrudMutations({
  model: 'ObjectRepositoryEntry',
  typeName: 'ObjectRepositoryEntry',
  label: 'Object repository entry',
  action: 'editContent',
  parent: 'objectId',
  fields: {
    objectId: {
      type: 'Int',
      required: true,
      references: 'WhiteboardObject',
      description: 'Row id of the object to publish; the entry joins the organization of its board.',
    },
    name: { type: 'String', required: true },
    description: longText,
  },
  onCreate: async (tx, data, ctx) => {
    const object = await tx.whiteboardObject.findUniqueOrThrow({
      where: { id: data.objectId },
      select: { whiteboard: { select: { organizationId: true } } },
    });
    return { organizationId: object.whiteboard.organizationId, authorId: principalOf(ctx).userId };
  },
  operations: ['create'],
});

builder.queryField('objectRepositoryUserChoices', (t) =>
  t.field({
    type: [Choice],
    description:
      "The users who published entries to the repositories of the caller's organizations, to filter entries by author.",
    resolve: async (_root, _args, ctx) => {
      const authors = await prisma().user.findMany({
        where: {
          repositoryEntries: { some: tenancyWhere('ObjectRepositoryEntry', principalOf(ctx)) },
          // An author who has left the caller's organizations is no longer theirs to see.
          AND: [tenancyWhere('User', principalOf(ctx))],
        },
        select: { id: true, email: true, firstName: true, lastName: true },
        orderBy: [{ firstName: 'asc' }, { lastName: 'asc' }, { id: 'asc' }],
      });
      return authors.map((user) => ({
        value: user.id,
        label: `${user.firstName} ${user.lastName}`.trim() || user.email,
      }));
    },
  }),
);
