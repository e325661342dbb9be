import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { DataStreamConnectionDirection } from './enums.js';
import { pageByOrder } from './pagination.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('DataStream', {
  ...rowIdNode('DataStream'),
  description: 'A named flow of data across a board, told as slides and walked through connections.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    icon: t.exposeString('icon'),
    color: t.exposeString('color'),
    authorId: t.exposeInt('authorId'),
    whiteboardId: t.exposeInt('whiteboardId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    author: t.relation('author'),
    whiteboard: t.relation('whiteboard'),
    slides: t.relatedConnection('slides', pageByOrder),
    connections: t.relatedConnection('connections', pageByOrder),
  }),
});

builder.prismaNode('DataStreamConnection', {
  ...rowIdNode('DataStreamConnection'),
  description: 'A step of a data stream: the object connection it follows, in order.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    dataStreamId: t.exposeInt('dataStreamId'),
    objectConnectionId: t.exposeInt('objectConnectionId'),
    direction: t.expose('direction', { type: DataStreamConnectionDirection }),
    order: t.exposeInt('order'),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    dataStream: t.relation('dataStream'),
    objectConnection: t.relation('objectConnection'),
  }),
});

builder.prismaNode('Slide', {
  ...rowIdNode('Slide'),
  description: 'A slide of a data stream: what to show, and where the camera looks.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    dataStreamId: t.exposeInt('dataStreamId'),
    authorId: t.exposeInt('authorId'),
    order: t.exposeInt('order'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    connectionsIsUsed: t.exposeBoolean('connectionsIsUsed'),
    enableCamera: t.exposeBoolean('enableCamera'),
    cameraX1: t.exposeFloat('cameraX1'),
    cameraY1: t.exposeFloat('cameraY1'),
    cameraX2: t.exposeFloat('cameraX2'),
    cameraY2: t.exposeFloat('cameraY2'),
    enableDescription: t.exposeBoolean('enableDescription'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    dataStream: t.relation('dataStream'),
    author: t.relation('author'),
  }),
});

defineRootFields({
  model: 'DataStream',
  list: 'dataStreams',
  single: 'dataStream',
  filter: { name: 'String', whiteboardId: 'Int', authorId: 'Int', color: 'String', createdAt: 'DateTime' },
  order: ['id', 'name', 'createdAt', 'updatedAt'],
});

defineRootFields({
  model: 'DataStreamConnection',
  list: 'dataStreamConnections',
  single: 'dataStreamConnection',
  filter: { dataStreamId: 'Int', objectConnectionId: 'Int', order: 'Int' },
  order: ['id', 'order', 'createdAt'],
});

defineRootFields({
  model: 'Slide',
  list: 'slides',
  single: 'slide',
  filter: { name: 'String', dataStreamId: 'Int', authorId: 'Int', order: 'Int', enableCamera: 'Boolean' },
  order: ['id', 'order', 'name', 'createdAt', 'updatedAt'],
});
