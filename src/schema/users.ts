import { forgetUser } from '../auth/principal.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { recordChange } from './changes.js';
import { Choice } from './choices.js';
import { badUserInput, notFound } from './errors.js';
import { rowIdNode } from './global-id.js';
import { pageInTenancy } from './pagination.js';
import { visibleOrganizationId } from '../auth/tenancy.js';
import { readPlan } from '../read-plans/extensions.js';
import { visibleRelation } from './relations.js';
import { defineRootFields } from './root-fields.js';
import { principalOf, type Context } from './context.js';
import { changedRow, plannedRow } from './loaders.js';
import { atExpectedVersion, expectedVersionField, versionOptions } from './versions.js';

builder.prismaNode('User', {
  ...rowIdNode('User'),
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    email: t.exposeString('email'),
    firstName: t.exposeString('firstName'),
    lastName: t.exposeString('lastName'),
    isActive: t.exposeBoolean('isActive'),
    isAdmin: t.exposeBoolean('isAdmin', { description: 'A platform administrator, who sees every organization.' }),
    organizationId: t.int({
      nullable: true,
      description:
        "The active organization's row id, when the caller may see that organization (as activeOrganization).",
      extensions: readPlan({ visibleOrganizationId: 'activeOrganizationId' }),
      resolve: (user, _args, ctx) => visibleOrganizationId(principalOf(ctx), user.activeOrganizationId),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    activeOrganization: t.prismaField(visibleRelation('User', 'activeOrganization')),
    memberships: t.relatedConnection('memberships', pageInTenancy('UserOrganization')),
    whiteboards: t.relatedConnection('whiteboards', pageInTenancy('Whiteboard')),
    libraries: t.relatedConnection('libraries', pageInTenancy('Library')),
    apiKeys: t.relatedConnection('apiKeys', pageInTenancy('ApiKey')),
  }),
});

defineRootFields({
  model: 'User',
  list: 'users',
  single: 'user',
  filter: {
    email: 'String',
    firstName: 'String',
    lastName: 'String',
    isActive: 'Boolean',
    isAdmin: 'Boolean',
    activeOrganizationId: 'Int',
  },
  order: ['id', 'email', 'firstName', 'lastName', 'createdAt'],
});

// One definition of what `me` asks Prisma, for its resolver and for the read planner.
const meArgs = (_args: object, ctx: Context) => ({ where: { id: principalOf(ctx).userId } });

builder.queryField('me', (t) =>
  t.prismaField({
    type: 'User',
    description: 'The user of the API key making the request.',
    extensions: readPlan({ root: 'single', model: 'User', findArgs: meArgs }),
    resolve: (query, _root, args, ctx) => plannedRow('User', query, meArgs(args, ctx).where.id),
  }),
);

const UpdateActiveOrganizationInput = builder.inputType('UpdateActiveOrganizationInput', {
  fields: (t) => ({
    organizationId: t.int({ required: true, description: 'Row id of an organization the caller belongs to.' }),
    expectedVersion: expectedVersionField(t),
  }),
});

/** A mutation's answer that is the changed user. */
function userPayload(name: string) {
  return builder.objectRef<{ userId: number }>(name).implement({
    fields: (t) => ({
      user: t.prismaField({
        type: 'User',
        resolve: (query, payload) => changedRow('User', query, payload.userId),
      }),
    }),
  });
}

const UpdateMeInput = builder.inputType('UpdateMeInput', {
  description:
    'The email address is not changed here: it is the identity invitations are matched on, and this service sends no mail to verify a new one.',
  fields: (t) => ({
    firstName: t.string({ description: 'Not empty; at most 100 characters.' }),
    lastName: t.string({ description: 'At most 100 characters; may be empty.' }),
    expectedVersion: expectedVersionField(t),
  }),
});

/** A trimmed name of at most 100 characters (undefined when not given); a first name may not be empty. */
export function cleanName(value: string | null | undefined, field: 'firstName' | 'lastName'): string | undefined {
  if (value === undefined) return undefined;
  const name = (value ?? '').trim();
  if (field === 'firstName' && name === '') throw badUserInput('firstName cannot be empty', 'input.firstName');
  if (name.length > 100) throw badUserInput(`${field} is longer than 100 characters`, `input.${field}`);
  return name;
}

/** Changes the caller's own user in one transaction with its change log entry, at the expected version when one is given. */
function changeOwnUser(
  ctx: Context,
  organizationId: number | null,
  expectedVersion: number | null | undefined,
  data: { firstName?: string; lastName?: string; activeOrganizationId?: number },
) {
  const { userId } = principalOf(ctx);
  return recordChange(ctx, { method: 'UPDATE', entityType: 'User', organizationId }, (tx) =>
    atExpectedVersion(tx, 'User', userId, expectedVersion, 'User', (where) =>
      tx.user.update({ where, data, select: { id: true } }),
    ),
  );
}

builder.mutationFields((t) => ({
  updateActiveOrganization: t.field({
    type: userPayload('UpdateActiveOrganizationPayload'),
    description: "Switches the caller's active organization among its memberships.",
    args: { input: t.arg({ type: UpdateActiveOrganizationInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const principal = principalOf(ctx);
      // Another organization answers like one that does not exist.
      if (!principal.roles.has(input.organizationId)) throw notFound('Organization');
      await changeOwnUser(ctx, input.organizationId, input.expectedVersion, {
        activeOrganizationId: input.organizationId,
      });
      forgetUser(principal.userId);
      return { userId: principal.userId };
    },
  }),
  updateMe: t.field({
    type: userPayload('UpdateMePayload'),
    description: "Changes the caller's own name.",
    args: { input: t.arg({ type: UpdateMeInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const data = {
        firstName: cleanName(input.firstName, 'firstName'),
        lastName: cleanName(input.lastName, 'lastName'),
      };
      const { userId, activeOrganizationId } = principalOf(ctx);
      await changeOwnUser(ctx, activeOrganizationId, input.expectedVersion, data);
      return { userId };
    },
  }),
}));

builder.queryField('organizationChoices', (t) =>
  t.field({
    type: [Choice],
    description: 'The organizations the caller belongs to, by name, for choosing the active one.',
    resolve: async (_root, _args, ctx) => {
      const organizations = await prisma().organization.findMany({
        where: { id: { in: [...principalOf(ctx).roles.keys()] } },
        select: { id: true, name: true },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
      });
      return organizations.map((organization) => ({ value: organization.id, label: organization.name }));
    },
  }),
);
