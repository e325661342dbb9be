import { forgetUser } from '../auth/principal.js';
import { prisma } from '../db/index.js';
import { Prisma as Sql } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { authorize, findForChange, recordChange, type Transaction } from './changes.js';
import { principalOf, type Context } from './context.js';
import { deletedPayload, rowTargetFields, targetRowId } from './crud.js';
import { Role, RoleFilter } from './enums.js';
import { conflict, forbidden } from './errors.js';
import { rowIdNode } from './global-id.js';
import { defineRootFields } from './root-fields.js';
import { visibleRelation } from './relations.js';
import { changedRow } from './loaders.js';
import { atExpectedVersion, expectedVersionField, versionOptions } from './versions.js';

export const Membership = builder.prismaNode('UserOrganization', {
  name: 'Membership',
  ...rowIdNode('UserOrganization'),
  description: 'A user belonging to an organization with a role there.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    userId: t.exposeInt('userId'),
    organizationId: t.exposeInt('organizationId'),
    role: t.expose('role', { type: Role }),
    lastActivity: t.expose('lastActivity', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    user: t.prismaField(visibleRelation('UserOrganization', 'user')),
    organization: t.relation('organization'),
  }),
});

defineRootFields({
  model: 'UserOrganization',
  typeName: 'Membership',
  list: 'memberships',
  single: 'membership',
  filter: { userId: 'Int', organizationId: 'Int', role: RoleFilter, lastActivity: 'DateTime' },
  order: ['id', 'role', 'lastActivity', 'createdAt'],
});

/**
 * Points users whose active organization is `organizationId` (only `userId`, when given) at another
 * of their memberships, the one used last, or at none. One statement whatever the number of users.
 */
export async function reassignActiveOrganization(
  tx: Transaction,
  organizationId: number,
  userId?: number,
): Promise<void> {
  await tx.$executeRaw`
    UPDATE "user" AS u SET updated_at = now(), organization_id = (
      SELECT m.organization_id FROM user_organization AS m
      WHERE m.user_id = u.id AND m.organization_id <> ${organizationId}
      ORDER BY m.last_activity DESC, m.id LIMIT 1)
    WHERE u.organization_id = ${organizationId} ${userId === undefined ? Sql.empty : Sql.sql`AND u.id = ${userId}`}`;
}

/**
 * Refuses a change that would leave the organization without an owner. The owner rows stay locked
 * until the transaction ends, so two owners demoting each other at once cannot both succeed.
 */
async function keepAnOwner(tx: Transaction, organizationId: number, membershipId: number): Promise<void> {
  const owners = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM user_organization WHERE organization_id = ${organizationId} AND role = 'OWNER' FOR UPDATE`;
  if (owners.length === 1 && owners[0].id === membershipId) {
    throw conflict('An organization keeps at least one owner: make another member an owner first');
  }
}

/** The `{id | rowId}` fields naming the row a mutation is about (read with targetRowId). */

const UpdateMemberRoleInput = builder.inputType('UpdateMemberRoleInput', {
  fields: (t) => ({
    ...rowTargetFields(t, 'membership'),
    expectedVersion: expectedVersionField(t),
    role: t.field({ type: Role, required: true }),
  }),
});

const UpdateMemberRolePayload = builder.objectRef<{ rowId: number }>('UpdateMemberRolePayload').implement({
  fields: (t) => ({
    membership: t.prismaField({
      type: Membership,
      resolve: (query, payload) => changedRow('UserOrganization', query, payload.rowId),
    }),
  }),
});

const RemoveMemberInput = builder.inputType('RemoveMemberInput', {
  fields: (t) => ({ ...rowTargetFields(t, 'membership'), expectedVersion: expectedVersionField(t) }),
});

/** The membership a change is about, with its user and role, as the caller may see it. */
async function targetMembership(ctx: Context, input: { id?: string | null; rowId?: number | null }) {
  const { id, organizationId } = await findForChange(
    ctx,
    'UserOrganization',
    targetRowId(input, 'Membership'),
    'Membership',
  );
  const { userId, role } = await prisma().userOrganization.findUniqueOrThrow({
    where: { id },
    select: { userId: true, role: true },
  });
  return { id, organizationId, userId, role };
}

builder.mutationFields((t) => ({
  updateMemberRole: t.field({
    type: UpdateMemberRolePayload,
    description: "Changes a member's role (owners only); the organization always keeps an owner.",
    args: { input: t.arg({ type: UpdateMemberRoleInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const membership = await targetMembership(ctx, input);
      authorize(ctx, 'changeRoles', membership.organizationId);
      const change = { method: 'UPDATE', entityType: 'Membership', organizationId: membership.organizationId } as const;
      await recordChange(ctx, change, async (tx) => {
        if (input.role !== 'OWNER') await keepAnOwner(tx, membership.organizationId, membership.id);
        return atExpectedVersion(tx, 'UserOrganization', membership.id, input.expectedVersion, 'Membership', (where) =>
          tx.userOrganization.update({ where, data: { role: input.role }, select: { id: true } }),
        );
      });
      forgetUser(membership.userId);
      return { rowId: membership.id };
    },
  }),
  removeMember: t.field({
    type: deletedPayload('RemoveMemberPayload', 'Membership'),
    description:
      'Removes a member from an organization (owners and admins; only an owner removes an owner), or lets the caller leave it. ' +
      'The last owner cannot leave. A removed user working in that organization is moved to another of theirs, or to none.',
    args: { input: t.arg({ type: RemoveMemberInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const membership = await targetMembership(ctx, input);
      const leaving = membership.userId === principalOf(ctx).userId;
      // Leaving needs no role: any member may walk out (with a write key, as every mutation).
      if (!leaving) {
        authorize(ctx, 'manageMembers', membership.organizationId);
        const callerRole = principalOf(ctx).roles.get(membership.organizationId);
        if (membership.role === 'OWNER' && callerRole !== 'OWNER' && !principalOf(ctx).isAdmin)
          throw forbidden('Only an owner may remove an owner');
      }
      const change = { method: 'DELETE', entityType: 'Membership', organizationId: membership.organizationId } as const;
      await recordChange(ctx, change, async (tx) => {
        await keepAnOwner(tx, membership.organizationId, membership.id);
        await atExpectedVersion(tx, 'UserOrganization', membership.id, input.expectedVersion, 'Membership', (where) =>
          tx.userOrganization.delete({ where }),
        );
        await reassignActiveOrganization(tx, membership.organizationId, membership.userId);
        return { id: membership.id };
      });
      forgetUser(membership.userId);
      return { rowId: membership.id };
    },
  }),
}));
