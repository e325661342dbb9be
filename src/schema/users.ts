import { forgetUser } from '../auth/principal.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { recordChange } from './changes.js';
import { notFound } from './errors.js';
import { rowIdNode } from './global-id.js';
import { Role, RoleFilter } from './enums.js';
import { pageInTenancy } from './pagination.js';
import { tenancyWhere } from '../auth/tenancy.js';
import { defineRootFields } from './root-fields.js';

builder.prismaNode('User', {
  ...rowIdNode('User'),
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
    activeOrganization: t.relation('activeOrganization', {
      nullable: true,
      description: "The user's active organization, when the caller may see it.",
      query: (_args, ctx) => ({ where: tenancyWhere('Organization', ctx.principal) }),
    }),
    memberships: t.relatedConnection('memberships', pageInTenancy('UserOrganization')),
    whiteboards: t.relatedConnection('whiteboards', pageInTenancy('Whiteboard')),
    libraries: t.relatedConnection('libraries', pageInTenancy('Library')),
    apiKeys: t.relatedConnection('apiKeys', pageInTenancy('ApiKey')),
  }),
});

builder.prismaNode('UserOrganization', {
  name: 'Membership',
  ...rowIdNode('UserOrganization'),
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
  ...rowIdNode('UserInvite'),
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

builder.queryField('me', (t) =>
  t.prismaField({
    type: 'User',
    description: 'The user of the API key making the request.',
    resolve: (query, _root, _args, ctx) => prisma().user.findUniqueOrThrow({ ...query, where: { id: ctx.principal.userId } }),
  }),
);

const UpdateActiveOrganizationInput = builder.inputType('UpdateActiveOrganizationInput', {
  fields: (t) => ({ organizationId: t.int({ required: true, description: 'Row id of an organization the caller belongs to.' }) }),
});

const UpdateActiveOrganizationPayload = builder.objectRef<{ userId: number }>('UpdateActiveOrganizationPayload').implement({
  fields: (t) => ({
    user: t.prismaField({
      type: 'User',
      resolve: (query, payload) => prisma().user.findUniqueOrThrow({ ...query, where: { id: payload.userId } }),
    }),
  }),
});

builder.mutationField('updateActiveOrganization', (t) =>
  t.field({
    type: UpdateActiveOrganizationPayload,
    description: "Switches the caller's active organization among its memberships.",
    args: { input: t.arg({ type: UpdateActiveOrganizationInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { principal } = ctx;
      // Another organization answers like one that does not exist.
      if (!principal.roles.has(input.organizationId)) throw notFound('Organization');
      const change = { method: 'UPDATE', entityType: 'User', organizationId: input.organizationId } as const;
      await recordChange(ctx, change, (tx) =>
        tx.user.update({ where: { id: principal.userId }, data: { activeOrganizationId: input.organizationId } }),
      );
      forgetUser(principal.userId);
      return { userId: principal.userId };
    },
  }),
);
