import { builder } from '../builder.js';
import { rowIdNode } from '../global-id.js';
import { HighlightOperand, HighlightOperandFilter } from '../enums.js';
import { pageInTenancy } from '../pagination.js';
import { defineRootFields } from '../root-fields.js';
import { visibleRelation } from '../relations.js';
import { versionOptions } from '../versions.js';

builder.prismaNode('WhiteboardHighlightGroup', {
  ...rowIdNode('WhiteboardHighlightGroup'),
  description: 'Highlights of a board switched on and off together.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    whiteboardId: t.exposeInt('whiteboardId'),
    name: t.exposeString('name'),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    whiteboard: t.relation('whiteboard'),
    highlights: t.relatedConnection('highlights', pageInTenancy('WhiteboardHighlight')),
  }),
});

builder.prismaNode('WhiteboardHighlight', {
  ...rowIdNode('WhiteboardHighlight'),
  description: "A rule marking the board's objects of a class whose attribute compares to a value by the operand.",
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    whiteboardId: t.exposeInt('whiteboardId'),
    groupId: t.exposeInt('groupId', { nullable: true }),
    name: t.exposeString('name'),
    color: t.exposeString('color'),
    classConfId: t.exposeInt('classConfId'),
    attributeId: t.exposeInt('attributeId'),
    operand: t.expose('operand', { type: HighlightOperand }),
    value: t.exposeString('value'),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    whiteboard: t.relation('whiteboard'),
    group: t.prismaField(visibleRelation('WhiteboardHighlight', 'group')),
    classConf: t.prismaField(visibleRelation('WhiteboardHighlight', 'classConf')),
    attribute: t.prismaField(visibleRelation('WhiteboardHighlight', 'attribute')),
  }),
});

defineRootFields({
  model: 'WhiteboardHighlightGroup',
  list: 'whiteboardHighlightGroups',
  single: 'whiteboardHighlightGroup',
  filter: { whiteboardId: 'Int', name: 'String', isActive: 'Boolean' },
  order: ['id', 'name', 'createdAt'],
});

defineRootFields({
  model: 'WhiteboardHighlight',
  list: 'whiteboardHighlights',
  single: 'whiteboardHighlight',
  filter: {
    whiteboardId: 'Int',
    groupId: 'Int',
    classConfId: 'Int',
    attributeId: 'Int',
    operand: HighlightOperandFilter,
    isActive: 'Boolean',
  },
  order: ['id', 'name', 'createdAt'],
});
