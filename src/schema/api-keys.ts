import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { ApiKeyPermission, ApiKeyPermissionFilter } from './enums.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('ApiKey', {
  ...rowIdNode,
  description: 'A key for the X-API-KEY header; only its prefix is ever shown after creation.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    userId: t.exposeInt('userId'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix'),
    permission: t.expose('permission', { type: ApiKeyPermission }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    user: t.relation('user'),
  }),
});

defineRootFields({
  model: 'ApiKey',
  list: 'apiKeys',
  single: 'apiKey',
  filter: { userId: 'Int', name: 'String', permission: ApiKeyPermissionFilter, expiresAt: 'DateTime', revokedAt: 'DateTime' },
  order: ['id', 'name', 'createdAt', 'lastUsedAt'],
});
