import { randomBytes } from 'node:crypto';
import { createApiKey, hashSecret } from '../auth/api-keys.js';
import { forgetUser } from '../auth/principal.js';
import { prisma } from '../db/index.js';
import type { ApiKeyPermission, Role as RoleValue } from '../generated/prisma/enums.js';
import { ofEmail } from '../db/patterns.js';
import { builder } from './builder.js';
import { authorize, findForChange, recordChange, type Transaction } from './changes.js';
import { principalOf, publicField, type Context } from './context.js';
import { defineCrudMutations, rowTargetFields, targetRowId } from './crud.js';
import { Role, RoleFilter } from './enums.js';
import { badUserInput, conflict, forbidden } from './errors.js';
import { rowIdNode } from './global-id.js';
import { Membership } from './memberships.js';
import { defineRootFields } from './root-fields.js';
import { cleanName } from './users.js';
import { visibleRelation } from './relations.js';
import { changedRow } from './loaders.js';
import { versionOptions } from './versions.js';

const UserInvite = builder.prismaNode('UserInvite', {
  ...rowIdNode('UserInvite'),
  description: 'An invitation to join an organization; its token is shown only by the mutation that issues it.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    email: t.exposeString('email'),
    organizationId: t.exposeInt('organizationId'),
    role: t.expose('role', { type: Role }),
    invitedById: t.exposeInt('invitedById'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
    invitedBy: t.prismaField(visibleRelation('UserInvite', 'invitedBy')),
  }),
});

defineRootFields({
  model: 'UserInvite',
  list: 'userInvites',
  single: 'userInvite',
  filter: { email: 'String', organizationId: 'Int', role: RoleFilter, expiresAt: 'DateTime' },
  order: ['id', 'email', 'expiresAt', 'createdAt'],
});

/** How long an invite can be accepted. */
const inviteLifetimeMs = 7 * 24 * 60 * 60 * 1000;

/** A fresh single-use token (256 random bits) and what is stored of it: its SHA-256 and its expiry. */
function issueToken() {
  const token = `wbi_${randomBytes(32).toString('base64url')}`;
  return { token, data: { tokenHash: hashSecret(token), expiresAt: new Date(Date.now() + inviteLifetimeMs) } };
}

/** Inviting takes manageMembers; only an owner hands out the owner role. */
function authorizeInvite(ctx: Context, organizationId: number, role: RoleValue): void {
  authorize(ctx, 'manageMembers', organizationId);
  if (role === 'OWNER' && principalOf(ctx).roles.get(organizationId) !== 'OWNER' && !principalOf(ctx).isAdmin) {
    throw forbidden('Only an owner may invite an owner');
  }
}

function cleanEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (email.length > 255 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    throw badUserInput('email is not a valid email address', 'input.email');
  return email;
}

const invalidToken = () => badUserInput('The invite token is unknown, expired or already used', 'input.token');

type UsableInvite = { id: number; email: string; organizationId: number; role: RoleValue };

/**
 * The invite a token opens, when it is still open. The token is the credential here, so the lookup
 * is by token, not limited to the caller's organizations.
 */
async function findUsableInvite(token: string): Promise<UsableInvite> {
  const invite = await prisma().userInvite.findUnique({
    where: { tokenHash: hashSecret(token) },
    select: { id: true, email: true, organizationId: true, role: true, acceptedAt: true, expiresAt: true },
  });
  if (!invite || invite.acceptedAt || invite.expiresAt <= new Date()) throw invalidToken();
  return invite;
}

/** Uses up the invite and makes the user a member with its role (working there, if nowhere yet). */
async function joinByInvite(tx: Transaction, invite: UsableInvite, userId: number): Promise<{ id: number }> {
  const now = new Date();
  // Only one transaction can flip acceptedAt, so a token is used at most once even when raced.
  const { count } = await tx.userInvite.updateMany({
    where: { id: invite.id, acceptedAt: null, expiresAt: { gt: now } },
    data: { acceptedAt: now },
  });
  if (count === 0) throw invalidToken();
  const existing = await tx.userOrganization.findUnique({
    where: { userId_organizationId: { userId, organizationId: invite.organizationId } },
  });
  if (existing) throw conflict('The user is already a member of the organization');
  const membership = await tx.userOrganization.create({
    data: { userId, organizationId: invite.organizationId, role: invite.role },
    select: { id: true },
  });
  await tx.user.updateMany({
    where: { id: userId, activeOrganizationId: null },
    data: { activeOrganizationId: invite.organizationId },
  });
  return membership;
}

/** The first key of a registered user carries what the invited role can use. */
const firstKeyPermission: Record<RoleValue, ApiKeyPermission> = {
  OWNER: 'ADMIN',
  ADMIN: 'ADMIN',
  MEMBER: 'READ_WRITE',
  VIEWER: 'READ_ONLY',
};

/**
 * Registers a new user through an invite: the user, the membership and a first API key in one
 * transaction. The key's secret is returned once.
 */
export async function registerWithInvite(input: { token: string; firstName: string; lastName?: string | null }) {
  const invite = await findUsableInvite(input.token);
  const firstName = cleanName(input.firstName, 'firstName')!;
  const lastName = cleanName(input.lastName, 'lastName') ?? '';
  return prisma().$transaction(async (tx) => {
    if (await tx.user.findFirst({ where: ofEmail(invite.email), select: { id: true } })) {
      throw conflict('A user with this email address exists: accept the invite with their API key instead');
    }
    const user = await tx.user.create({ data: { email: invite.email, firstName, lastName }, select: { id: true } });
    const membership = await joinByInvite(tx, invite, user.id);
    const apiKey = await createApiKey(tx, {
      userId: user.id,
      name: 'first key',
      permission: firstKeyPermission[invite.role],
    });
    // recordChange logs for a caller; here the caller is the user this transaction creates.
    await tx.userActionLog.create({
      data: {
        userId: user.id,
        organizationId: invite.organizationId,
        method: 'CREATE',
        entityType: 'User',
        entityId: user.id,
      },
    });
    return { userId: user.id, membershipId: membership.id, apiKeySecret: apiKey.secret };
  });
}

const RegisterWithInviteInput = builder.inputType('RegisterWithInviteInput', {
  fields: (t) => ({
    token: t.string({
      required: true,
      description: 'The token of an open invite for an email address that has no user yet.',
    }),
    firstName: t.string({ required: true }),
    lastName: t.string(),
  }),
});

const RegisterWithInvitePayload = builder
  .objectRef<Awaited<ReturnType<typeof registerWithInvite>>>('RegisterWithInvitePayload')
  .implement({
    fields: (t) => ({
      userId: t.exposeInt('userId', { description: 'Row id of the new user.' }),
      membershipId: t.exposeInt('membershipId', { description: 'Row id of the new membership.' }),
      apiKey: t.exposeString('apiKeySecret', { description: "The first API key's secret, shown this once." }),
    }),
  });

// A newcomer has no API key to send: the invite's token is the credential.
builder.mutationField('registerWithInvite', (t) =>
  t.field({
    type: RegisterWithInvitePayload,
    description:
      'Registers a new user through an invite, without an API key: the user, the membership and a first API key, whose secret is answered once.',
    args: { input: t.arg({ type: RegisterWithInviteInput, required: true }) },
    skipTypeScopes: true,
    extensions: publicField,
    resolve: (_root, { input }) => registerWithInvite(input),
  }),
);

const CreateUserInviteInput = builder.inputType('CreateUserInviteInput', {
  fields: (t) => ({
    email: t.string({ required: true, description: 'Who is invited; stored in lower case.' }),
    role: t.field({
      type: Role,
      required: true,
      description: 'The role the invitee gets; OWNER only when an owner invites.',
    }),
    organizationId: t.int({ description: "Row id of the organization; defaults to the caller's active organization." }),
  }),
});

const ResendUserInviteInput = builder.inputType('ResendUserInviteInput', {
  fields: (t) => rowTargetFields(t, 'invite'),
});

const AcceptUserInviteInput = builder.inputType('AcceptUserInviteInput', {
  fields: (t) => ({
    token: t.string({
      required: true,
      description: "The invite's token; the invite must be for the caller's email address.",
    }),
  }),
});

/** The answer of a mutation that issues a token: the invite, and the token this once. */
function invitePayload(name: string) {
  return builder.objectRef<{ rowId: number; token: string }>(name).implement({
    fields: (t) => ({
      userInvite: t.prismaField({
        type: UserInvite,
        resolve: (query, payload) => changedRow('UserInvite', query, payload.rowId),
      }),
      token: t.exposeString('token', {
        description:
          'The single-use token, shown this once (only its hash is stored). This service sends no mail: pass it on to the invitee.',
      }),
    }),
  });
}

const AcceptUserInvitePayload = builder.objectRef<{ rowId: number }>('AcceptUserInvitePayload').implement({
  fields: (t) => ({
    membership: t.prismaField({
      type: Membership,
      resolve: (query, payload) => changedRow('UserOrganization', query, payload.rowId),
    }),
  }),
});

builder.mutationFields((t) => ({
  createUserInvite: t.field({
    type: invitePayload('CreateUserInvitePayload'),
    description: 'Invites an email address into an organization with a role; the token expires after 7 days.',
    args: { input: t.arg({ type: CreateUserInviteInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const email = cleanEmail(input.email);
      const organizationId = input.organizationId ?? principalOf(ctx).activeOrganizationId;
      if (organizationId == null)
        throw badUserInput(
          'organizationId is required when the caller has no active organization',
          'input.organizationId',
        );
      const organization = await findForChange(ctx, 'Organization', organizationId, 'Organization');
      authorizeInvite(ctx, organization.id, input.role);
      const { token, data } = issueToken();
      const change = {
        method: 'CREATE',
        entityType: 'UserInvite',
        organizationId: organization.id,
        secret: true,
      } as const;
      const invite = await recordChange(ctx, change, async (tx) => {
        if (
          await tx.userOrganization.findFirst({
            where: { organizationId: organization.id, user: { email } },
            select: { id: true },
          })
        ) {
          throw badUserInput(`${email} is already a member of the organization`, 'input.email');
        }
        const open = { organizationId: organization.id, email, acceptedAt: null, expiresAt: { gt: new Date() } };
        if (await tx.userInvite.findFirst({ where: open, select: { id: true } })) {
          throw badUserInput(`${email} already has an open invite: resend it instead`, 'input.email');
        }
        return tx.userInvite.create({
          data: {
            email,
            role: input.role,
            organizationId: organization.id,
            invitedById: principalOf(ctx).userId,
            ...data,
          },
          select: { id: true },
        });
      });
      return { rowId: invite.id, token };
    },
  }),
  resendUserInvite: t.field({
    type: invitePayload('ResendUserInvitePayload'),
    description:
      'Replaces the token of an open invite with a new one, valid for 7 days from now; the old token stops working.',
    args: { input: t.arg({ type: ResendUserInviteInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const target = await findForChange(ctx, 'UserInvite', targetRowId(input, 'UserInvite'), 'User invite');
      const invite = await prisma().userInvite.findUniqueOrThrow({
        where: { id: target.id },
        select: { role: true, acceptedAt: true },
      });
      authorizeInvite(ctx, target.organizationId, invite.role);
      if (invite.acceptedAt) throw conflict('The invite has been accepted already');
      const { token, data } = issueToken();
      const change = {
        method: 'UPDATE',
        entityType: 'UserInvite',
        organizationId: target.organizationId,
        secret: true,
      } as const;
      await recordChange(ctx, change, (tx) =>
        tx.userInvite.update({ where: { id: target.id }, data, select: { id: true } }),
      );
      return { rowId: target.id, token };
    },
  }),
  acceptUserInvite: t.field({
    type: AcceptUserInvitePayload,
    description:
      "Joins the invite's organization with its role, as the caller, whose email address the invite must be for.",
    args: { input: t.arg({ type: AcceptUserInviteInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const invite = await findUsableInvite(input.token);
      const caller = await prisma().user.findUniqueOrThrow({
        where: { id: principalOf(ctx).userId },
        select: { email: true },
      });
      // A token for someone else is reported like an unknown one.
      if (caller.email.toLowerCase() !== invite.email.toLowerCase()) throw invalidToken();
      const change = { method: 'CREATE', entityType: 'Membership', organizationId: invite.organizationId } as const;
      const membership = await recordChange(ctx, change, (tx) => joinByInvite(tx, invite, principalOf(ctx).userId));
      forgetUser(principalOf(ctx).userId);
      return { rowId: membership.id };
    },
  }),
}));

defineCrudMutations({
  model: 'UserInvite',
  typeName: 'UserInvite',
  label: 'User invite',
  action: 'manageMembers',
  parent: 'organizationId',
  fields: {},
  operations: ['delete'],
});
