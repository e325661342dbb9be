import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { pageById } from './pagination.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('Whiteboard', {
  ...rowIdNode,
  description: 'A board of an organization: objects and their connections, data streams told as slides.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    authorId: t.exposeInt('authorId'),
    organizationId: t.exposeInt('organizationId'),
    inTheArchive: t.exposeBoolean('inTheArchive'),
    miniDrawingId: t.exposeInt('miniDrawingId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    author: t.relation('author'),
    organization: t.relation('organization'),
    miniDrawing: t.relation('miniDrawing', { nullable: true }),
    dataStreams: t.relatedConnection('dataStreams', pageById),
    objects: t.relatedConnection('objects', pageById),
    objectConnections: t.relatedConnection('objectConnections', pageById),
    highlights: t.relatedConnection('highlights', pageById),
    highlightGroups: t.relatedConnection('highlightGroups', pageById),
  }),
});

defineRootFields({
  model: 'Whiteboard',
  list: 'whiteboards',
  single: 'whiteboard',
  filter: { name: 'String', authorId: 'Int', organizationId: 'Int', inTheArchive: 'Boolean', createdAt: 'DateTime', updatedAt: 'DateTime' },
  order: ['id', 'name', 'createdAt', 'updatedAt'],
});
