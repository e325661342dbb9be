import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('ObjectRepositoryEntry', {
  ...rowIdNode('ObjectRepositoryEntry'),
  description: "An object published to its organization's repository for reuse on other boards.",
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    organizationId: t.exposeInt('organizationId'),
    objectId: t.exposeInt('objectId'),
    authorId: t.exposeInt('authorId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
    object: t.relation('object'),
    author: t.relation('author'),
  }),
});

defineRootFields({
  model: 'ObjectRepositoryEntry',
  list: 'objectRepositoryEntries',
  single: 'objectRepositoryEntry',
  filter: { name: 'String', organizationId: 'Int', objectId: 'Int', authorId: 'Int', createdAt: 'DateTime' },
  order: ['id', 'name', 'createdAt'],
});
