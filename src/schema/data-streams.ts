import { builder } from './builder.js';
import { defineCrudMutations, defineReorderMutation, type FieldSpec, boardOfRow, longText } from './crud.js';
import { badUserInput } from './errors.js';
import { rowIdNode } from './global-id.js';
import { DataStreamConnectionDirection } from './enums.js';
import { pageByOrder } from './pagination.js';
import { nextPosition } from './positions.js';
import { defineRootFields } from './root-fields.js';
import { principalOf } from './context.js';
import { visibleRelation } from './relations.js';
import { versionOptions } from './versions.js';

builder.prismaNode('DataStream', {
  ...rowIdNode('DataStream'),
  description: 'A named flow of data across a board, told as slides and walked through connections.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    icon: t.exposeString('icon'),
    color: t.exposeString('color'),
    authorId: t.exposeInt('authorId'),
    whiteboardId: t.exposeInt('whiteboardId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    author: t.prismaField(visibleRelation('DataStream', 'author')),
    whiteboard: t.relation('whiteboard'),
    slides: t.relatedConnection('slides', pageByOrder('Slide')),
    connections: t.relatedConnection('connections', pageByOrder('DataStreamConnection')),
  }),
});

builder.prismaNode('DataStreamConnection', {
  ...rowIdNode('DataStreamConnection'),
  description: 'A step of a data stream: the object connection it follows, in order.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    dataStreamId: t.exposeInt('dataStreamId'),
    objectConnectionId: t.exposeInt('objectConnectionId'),
    direction: t.expose('direction', { type: DataStreamConnectionDirection }),
    order: t.exposeInt('order'),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    dataStream: t.relation('dataStream'),
    objectConnection: t.prismaField(visibleRelation('DataStreamConnection', 'objectConnection')),
  }),
});

builder.prismaNode('Slide', {
  ...rowIdNode('Slide'),
  description: 'A slide of a data stream: what to show, and where the camera looks.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
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
    author: t.prismaField(visibleRelation('Slide', 'author')),
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

const position: FieldSpec = {
  type: 'Int',
  min: 1,
  description: 'Position in the stream; a new row without one goes last.',
};

defineCrudMutations({
  model: 'DataStream',
  typeName: 'DataStream',
  label: 'Data stream',
  action: 'editContent',
  parent: 'whiteboardId',
  fields: {
    whiteboardId: boardOfRow,
    name: { type: 'String', required: true },
    description: longText,
    icon: { type: 'String' },
    color: { type: 'String', maxLength: 32 },
  },
  onCreate: (_tx, _data, ctx) => ({ authorId: principalOf(ctx).userId }),
});

defineCrudMutations({
  model: 'Slide',
  typeName: 'Slide',
  label: 'Slide',
  action: 'editContent',
  parent: 'dataStreamId',
  fields: {
    dataStreamId: { type: 'Int', required: true, references: 'DataStream', description: 'Row id of the data stream.' },
    name: { type: 'String', required: true },
    description: longText,
    order: position,
    connectionsIsUsed: { type: 'Boolean' },
    enableCamera: { type: 'Boolean' },
    cameraX1: { type: 'Float' },
    cameraY1: { type: 'Float' },
    cameraX2: { type: 'Float' },
    cameraY2: { type: 'Float' },
    enableDescription: { type: 'Boolean' },
  },
  onCreate: async (tx, data, ctx) => ({
    authorId: principalOf(ctx).userId,
    order: data.order ?? (await nextPosition(tx, 'Slide', data.dataStreamId)),
  }),
});

defineCrudMutations({
  model: 'DataStreamConnection',
  typeName: 'DataStreamConnection',
  label: 'Data stream connection',
  action: 'editContent',
  parent: 'dataStreamId',
  fields: {
    dataStreamId: { type: 'Int', required: true, references: 'DataStream', description: 'Row id of the data stream.' },
    objectConnectionId: {
      type: 'Int',
      required: true,
      references: 'WhiteboardObjectConnection',
      description: 'Row id of an object connection on the same board as the stream.',
    },
    direction: { type: DataStreamConnectionDirection },
    order: position,
    description: longText,
  },
  onCreate: async (tx, data) => ({
    order: data.order ?? (await nextPosition(tx, 'DataStreamConnection', data.dataStreamId)),
  }),
  // A stream can only walk the connections drawn on its own board.
  check: async (tx, data, rowId) => {
    if (data.objectConnectionId == null) return;
    const stream =
      rowId == null
        ? await tx.dataStream.findUniqueOrThrow({ where: { id: data.dataStreamId! }, select: { whiteboardId: true } })
        : (
            await tx.dataStreamConnection.findUniqueOrThrow({
              where: { id: rowId },
              select: { dataStream: { select: { whiteboardId: true } } },
            })
          ).dataStream;
    const connection = await tx.whiteboardObjectConnection.findUnique({
      where: { id: data.objectConnectionId },
      select: { whiteboardId: true },
    });
    if (connection?.whiteboardId !== stream.whiteboardId) {
      throw badUserInput(
        `objectConnectionId ${data.objectConnectionId} is not a connection on the stream's board`,
        'input.objectConnectionId',
      );
    }
  },
});

defineReorderMutation({ model: 'Slide', name: 'reorderSlides', label: 'Slide', action: 'editContent' });
defineReorderMutation({
  model: 'DataStreamConnection',
  name: 'reorderDataStreamConnections',
  label: 'Data stream connection',
  action: 'editContent',
});
