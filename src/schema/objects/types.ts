import { builder } from '../builder.js';
import { rowIdNode } from '../global-id.js';
import { ObjectConnectionDirection, ObjectConnectionShape, ObjectConnectionStyle } from '../enums.js';
import { pageById, pageInTenancy } from '../pagination.js';
import { defineRootFields } from '../root-fields.js';
import { visibleRelation } from '../relations.js';
import { versionOptions } from '../versions.js';

builder.prismaNode('WhiteboardObject', {
  ...rowIdNode('WhiteboardObject'),
  description: 'A thing on a board, optionally of a library class whose attributes it fills in.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    whiteboardId: t.exposeInt('whiteboardId'),
    classConfId: t.exposeInt('classConfId', { nullable: true }),
    authorId: t.exposeInt('authorId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    whiteboard: t.relation('whiteboard'),
    classConf: t.prismaField(visibleRelation('WhiteboardObject', 'classConf')),
    author: t.prismaField(visibleRelation('WhiteboardObject', 'author')),
    instances: t.relatedConnection('instances', pageById('WhiteboardObjectInstance')),
    attributes: t.relatedConnection('attributes', pageById('WhiteboardObjectAttribute')),
    outgoingConnections: t.relatedConnection('outgoing', pageInTenancy('WhiteboardObjectConnection')),
    incomingConnections: t.relatedConnection('incoming', pageInTenancy('WhiteboardObjectConnection')),
    children: t.relatedConnection('childRelations', pageById('WhiteboardObjectRelation')),
    parents: t.relatedConnection('parentRelations', pageInTenancy('WhiteboardObjectRelation')),
  }),
});

builder.prismaNode('WhiteboardObjectInstance', {
  ...rowIdNode('WhiteboardObjectInstance'),
  description: 'Where an object is drawn on its board.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    objectId: t.exposeInt('objectId'),
    x: t.exposeFloat('x'),
    y: t.exposeFloat('y'),
    width: t.exposeFloat('width'),
    height: t.exposeFloat('height'),
    zIndex: t.exposeInt('zIndex'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    object: t.relation('object'),
  }),
});

builder.prismaNode('WhiteboardObjectAttribute', {
  ...rowIdNode('WhiteboardObjectAttribute'),
  description: "An object's value for one attribute of its class, in the field of the attribute's type.",
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    objectId: t.exposeInt('objectId'),
    attributeId: t.exposeInt('attributeId'),
    valueStr: t.exposeString('valueStr', { nullable: true }),
    valueNumber: t.exposeFloat('valueNumber', { nullable: true }),
    valueBool: t.exposeBoolean('valueBool', { nullable: true }),
    valueDate: t.expose('valueDate', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    object: t.relation('object'),
    attribute: t.prismaField(visibleRelation('WhiteboardObjectAttribute', 'attribute')),
  }),
});

builder.prismaNode('WhiteboardObjectConnection', {
  ...rowIdNode('WhiteboardObjectConnection'),
  description: 'A drawn link between two objects of one board.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    whiteboardId: t.exposeInt('whiteboardId'),
    sourceObjectId: t.exposeInt('sourceObjectId'),
    targetObjectId: t.exposeInt('targetObjectId'),
    name: t.exposeString('name'),
    color: t.exposeString('color'),
    direction: t.expose('direction', { type: ObjectConnectionDirection }),
    shape: t.expose('shape', { type: ObjectConnectionShape }),
    style: t.expose('style', { type: ObjectConnectionStyle }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    whiteboard: t.relation('whiteboard'),
    sourceObject: t.prismaField(visibleRelation('WhiteboardObjectConnection', 'sourceObject')),
    targetObject: t.prismaField(visibleRelation('WhiteboardObjectConnection', 'targetObject')),
    dataStreamConnections: t.relatedConnection('dataStreamConnections', pageInTenancy('DataStreamConnection')),
  }),
});

builder.prismaNode('WhiteboardObjectRelation', {
  ...rowIdNode('WhiteboardObjectRelation'),
  description: 'Nesting of objects: the child lies inside the parent.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    parentObjectId: t.exposeInt('parentObjectId'),
    childObjectId: t.exposeInt('childObjectId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    parentObject: t.relation('parentObject'),
    childObject: t.prismaField(visibleRelation('WhiteboardObjectRelation', 'childObject')),
  }),
});

defineRootFields({
  model: 'WhiteboardObject',
  list: 'whiteboardObjects',
  single: 'whiteboardObject',
  filter: {
    name: 'String',
    description: 'String',
    whiteboardId: 'Int',
    classConfId: 'Int',
    authorId: 'Int',
    createdAt: 'DateTime',
  },
  order: ['id', 'name', 'createdAt', 'updatedAt'],
});

defineRootFields({
  model: 'WhiteboardObjectInstance',
  list: 'whiteboardObjectInstances',
  single: 'whiteboardObjectInstance',
  filter: { objectId: 'Int', zIndex: 'Int' },
  order: ['id', 'zIndex', 'createdAt'],
});

defineRootFields({
  model: 'WhiteboardObjectAttribute',
  list: 'whiteboardObjectAttributes',
  single: 'whiteboardObjectAttribute',
  filter: {
    objectId: 'Int',
    attributeId: 'Int',
    valueStr: 'String',
    valueNumber: 'Float',
    valueBool: 'Boolean',
    valueDate: 'DateTime',
  },
  order: ['id', 'attributeId', 'valueStr', 'valueNumber', 'valueDate'],
});

defineRootFields({
  model: 'WhiteboardObjectConnection',
  list: 'whiteboardObjectConnections',
  single: 'whiteboardObjectConnection',
  filter: { whiteboardId: 'Int', sourceObjectId: 'Int', targetObjectId: 'Int', name: 'String' },
  order: ['id', 'name', 'createdAt'],
});

defineRootFields({
  model: 'WhiteboardObjectRelation',
  list: 'whiteboardObjectRelations',
  single: 'whiteboardObjectRelation',
  filter: { parentObjectId: 'Int', childObjectId: 'Int' },
  order: ['id', 'createdAt'],
});
