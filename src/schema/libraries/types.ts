import { builder } from '../builder.js';
import { rowIdNode } from '../global-id.js';
import {
  ClassConfAttributeType,
  ClassConfAttributeTypeFilter,
  LibraryClassType,
  LibraryClassTypeFilter,
  LibraryPublishedStatus,
  LibraryPublishedStatusFilter,
} from '../enums.js';
import { pageById, pageByOrder, pageInTenancy } from '../pagination.js';
import { defineRootFields } from '../root-fields.js';
import { visibleRelation } from '../relations.js';
import { versionOptions } from '../versions.js';

builder.prismaNode('Library', {
  ...rowIdNode('Library'),
  description: "An organization's library of object classes and their textures.",
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    organizationId: t.exposeInt('organizationId'),
    authorId: t.exposeInt('authorId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    publishedStatus: t.expose('publishedStatus', { type: LibraryPublishedStatus }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
    author: t.prismaField(visibleRelation('Library', 'author')),
    classes: t.relatedConnection('classes', pageById('ClassConf')),
    textures: t.relatedConnection('textures', pageById('ClassTexture')),
  }),
});

builder.prismaNode('ClassConf', {
  ...rowIdNode('ClassConf'),
  description: 'A class of objects in a library: its kind, how it is drawn, and the attributes its objects carry.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    libraryId: t.exposeInt('libraryId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    classType: t.expose('classType', { type: LibraryClassType }),
    icon: t.exposeString('icon'),
    figureType: t.exposeString('figureType'),
    textureId: t.exposeInt('textureId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    library: t.relation('library'),
    texture: t.prismaField(visibleRelation('ClassConf', 'texture')),
    attributes: t.relatedConnection('attributes', pageByOrder('ClassConfAttribute')),
    objects: t.relatedConnection('objects', pageInTenancy('WhiteboardObject')),
  }),
});

builder.prismaNode('ClassConfAttribute', {
  ...rowIdNode('ClassConfAttribute'),
  description: 'An attribute every object of a class carries, of one type.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    classConfId: t.exposeInt('classConfId'),
    name: t.exposeString('name'),
    code: t.exposeString('code'),
    type: t.expose('type', { type: ClassConfAttributeType }),
    order: t.exposeInt('order'),
    isRequired: t.exposeBoolean('isRequired'),
    choices: t.exposeStringList('choices'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    classConf: t.relation('classConf'),
    values: t.relatedConnection('values', pageInTenancy('WhiteboardObjectAttribute')),
  }),
});

builder.prismaNode('ClassTexture', {
  name: 'Texture',
  ...rowIdNode('ClassTexture'),
  description: 'How objects of a class are drawn: layout of icon, name and class name, light and dark theme.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    libraryId: t.exposeInt('libraryId'),
    name: t.exposeString('name'),
    lightThemeImageId: t.exposeInt('lightThemeImageId', { nullable: true }),
    darkThemeImageId: t.exposeInt('darkThemeImageId', { nullable: true }),
    iconX: t.exposeFloat('iconX'),
    iconY: t.exposeFloat('iconY'),
    iconWidth: t.exposeFloat('iconWidth'),
    iconHeight: t.exposeFloat('iconHeight'),
    iconVisible: t.exposeBoolean('iconVisible'),
    lightThemeTextColor: t.exposeString('lightThemeTextColor'),
    darkThemeTextColor: t.exposeString('darkThemeTextColor'),
    nameFontSize: t.exposeInt('nameFontSize'),
    nameX: t.exposeFloat('nameX'),
    nameY: t.exposeFloat('nameY'),
    nameWidth: t.exposeFloat('nameWidth'),
    nameHeight: t.exposeFloat('nameHeight'),
    nameVisible: t.exposeBoolean('nameVisible'),
    classNameFontSize: t.exposeInt('classNameFontSize'),
    classNameVisible: t.exposeBoolean('classNameVisible'),
    classNameX: t.exposeFloat('classNameX'),
    classNameY: t.exposeFloat('classNameY'),
    classNameWidth: t.exposeFloat('classNameWidth'),
    classNameHeight: t.exposeFloat('classNameHeight'),
    width: t.exposeFloat('width'),
    height: t.exposeFloat('height'),
    lightClassNameColor: t.exposeString('lightClassNameColor'),
    darkClassNameColor: t.exposeString('darkClassNameColor'),
    isTextInCenterWithoutLogo: t.exposeBoolean('isTextInCenterWithoutLogo'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    library: t.relation('library'),
    lightThemeImage: t.prismaField(visibleRelation('ClassTexture', 'lightThemeImage')),
    darkThemeImage: t.prismaField(visibleRelation('ClassTexture', 'darkThemeImage')),
    classes: t.relatedConnection('classes', pageInTenancy('ClassConf')),
  }),
});

defineRootFields({
  model: 'Library',
  list: 'libraries',
  single: 'library',
  filter: {
    name: 'String',
    organizationId: 'Int',
    authorId: 'Int',
    publishedStatus: LibraryPublishedStatusFilter,
    createdAt: 'DateTime',
  },
  order: ['id', 'name', 'createdAt', 'updatedAt'],
});

defineRootFields({
  model: 'ClassConf',
  list: 'classConfs',
  single: 'classConf',
  filter: {
    name: 'String',
    libraryId: 'Int',
    classType: LibraryClassTypeFilter,
    figureType: 'String',
    textureId: 'Int',
  },
  order: ['id', 'name', 'classType', 'createdAt'],
});

defineRootFields({
  model: 'ClassConfAttribute',
  list: 'classConfAttributes',
  single: 'classConfAttribute',
  filter: { classConfId: 'Int', name: 'String', code: 'String', type: ClassConfAttributeTypeFilter },
  order: ['id', 'order', 'name', 'code'],
});

defineRootFields({
  model: 'ClassTexture',
  typeName: 'Texture',
  list: 'textures',
  single: 'texture',
  filter: { name: 'String', libraryId: 'Int', lightThemeImageId: 'Int', darkThemeImageId: 'Int' },
  order: ['id', 'name', 'createdAt'],
});
