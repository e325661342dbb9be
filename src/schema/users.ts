import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { Role, RoleFilter } from './enums.js';
import { pageById } from './pagination.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('User', {
  ...rowIdNode,
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    email: t.exposeString('email'),
    firstName: t.exposeString('firstName'),
    lastName: t.exposeString('lastName'),
    isActive: t.exposeBoolean('isActive'),
    isAdmin: t.exposeBoolean('isAdmin', { description: 'A platform administrator, who sees every organization.' }),
    organizationId: t.exposeInt('activeOrganizationId', { nullable: true, description: 'The active organization.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    activeOrganization: t.relation('activeOrganization', { nullable: true }),
    memberships: t.relatedConnection('memberships', pageById),
    whiteboards: t.relatedConnection('whiteboards', pageById),
    libraries: t.relatedConnection('libraries', pageById),
    apiKeys: t.relatedConnection('apiKeys', pageById),
  }),
});

builder.prismaNode('UserOrganization', {
  name: 'Membership',
  ...rowIdNode,
  description: 'A user belonging to an organization with a role there.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    userId: t.exposeInt('userId'),
    organizationId: t.exposeInt('organizationId'),
    role: t.expose('role', { type: Role }),
    lastActivity: t.expose('lastActivity', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    user: t.relation('user'),
    organization: t.relation('organization'),
  }),
});

builder.prismaNode('UserInvite', {
  ...rowIdNode,
  description: 'An invitation to join an organization; its token is never shown again.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    email: t.exposeString('email'),
    organizationId: t.exposeInt('organizationId'),
    role: t.expose('role', { type: Role }),
    invitedById: t.exposeInt('invitedById'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
    invitedBy: t.relation('invitedBy'),
  }),
});

defineRootFields({
  model: 'User',
  list: 'users',
  single: 'user',
  filter: { email: 'String', firstName: 'String', lastName: 'String', isActive: 'Boolean', isAdmin: 'Boolean', activeOrganizationId: 'Int' },
  order: ['id', 'email', 'firstName', 'lastName', 'createdAt'],
});

defineRootFields({
  model: 'UserOrganization',
  typeName: 'Membership',
  list: 'memberships',
  single: 'membership',
  filter: { userId: 'Int', organizationId: 'Int', role: RoleFilter, lastActivity: 'DateTime' },
  order: ['id', 'role', 'lastActivity', 'createdAt'],
});

defineRootFields({
  model: 'UserInvite',
  list: 'userInvites',
  single: 'userInvite',
  filter: { email: 'String', organizationId: 'Int', role: RoleFilter, expiresAt: 'DateTime' },
  order: ['id', 'email', 'expiresAt', 'createdAt'],
});
