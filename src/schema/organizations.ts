import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { RateCode, RateCodeFilter } from './enums.js';
import { pageById, pageInTenancy } from './pagination.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('Rate', {
  ...rowIdNode('Rate'),
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    code: t.expose('code', { type: RateCode }),
    name: t.exposeString('name'),
    maxUsers: t.exposeInt('maxUsers', { nullable: true }),
    maxWhiteboards: t.exposeInt('maxWhiteboards', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organizations: t.relatedConnection('organizations', pageInTenancy('Organization')),
  }),
});

builder.prismaNode('Organization', {
  ...rowIdNode('Organization'),
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    name: t.exposeString('name'),
    rateId: t.exposeInt('rateId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    rate: t.relation('rate', { nullable: true }),
    members: t.relatedConnection('members', pageById),
    invites: t.relatedConnection('invites', pageById),
    whiteboards: t.relatedConnection('whiteboards', pageById),
    libraries: t.relatedConnection('libraries', pageById),
    files: t.relatedConnection('files', pageById),
    repositoryEntries: t.relatedConnection('repository', pageById),
    actionLogs: t.relatedConnection('actionLogs', { ...pageById, query: { orderBy: { id: 'desc' as const } } }),
  }),
});

defineRootFields({
  model: 'Rate',
  list: 'rates',
  single: 'rate',
  filter: { code: RateCodeFilter, name: 'String' },
  order: ['id', 'code', 'name'],
});

defineRootFields({
  model: 'Organization',
  list: 'organizations',
  single: 'organization',
  filter: { name: 'String', rateId: 'Int', createdAt: 'DateTime' },
  order: ['id', 'name', 'createdAt', 'updatedAt'],
});
