import { forgetUser } from '../auth/principal.js';
import { tenancyWhere } from '../auth/tenancy.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { authorize, findForChange, recordChange, type Change, type Transaction } from './changes.js';
import { Choice } from './choices.js';
import { defineCrudMutations, deletedPayload, rowTargetFields, targetRowId } from './crud.js';
import { badUserInput } from './errors.js';
import { reassignActiveOrganization } from './memberships.js';
import { rowIdNode } from './global-id.js';
import { RateCode, RateCodeFilter } from './enums.js';
import { pageById, pageInTenancy } from './pagination.js';
import { defineRootFields } from './root-fields.js';
import { principalOf } from './context.js';
import { changedRow, whenId } from './loaders.js';
import { atExpectedVersion, expectedVersionField, versionOptions } from './versions.js';

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

const Organization = builder.prismaNode('Organization', {
  ...rowIdNode('Organization'),
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    name: t.exposeString('name'),
    rateId: t.exposeInt('rateId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    rate: t.relation('rate', { nullable: true }),
    members: t.relatedConnection('members', pageById('UserOrganization')),
    invites: t.relatedConnection('invites', pageById('UserInvite')),
    whiteboards: t.relatedConnection('whiteboards', pageById('Whiteboard')),
    libraries: t.relatedConnection('libraries', pageById('Library')),
    files: t.relatedConnection('files', pageById('File')),
    repositoryEntries: t.relatedConnection('repository', pageById('ObjectRepositoryEntry')),
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

const OrganizationInfo = builder.prismaObject('Organization', {
  variant: 'OrganizationInfo',
  description: 'An organization with the figures of its dashboard.',
  fields: (t) => ({
    organization: t.variant(Organization),
    memberCount: t.relationCount('members'),
    libraryCount: t.relationCount('libraries'),
    whiteboardCount: t.relationCount('whiteboards', { description: 'Boards, archived ones included.' }),
    archivedWhiteboardCount: t.int({
      description: 'Boards in the archive.',
      // A second count of the same relation cannot ride on the planned query; this is one statement more.
      resolve: (organization) =>
        prisma().whiteboard.count({ where: { organizationId: organization.id, inTheArchive: true } }),
    }),
  }),
});

builder.queryFields((t) => ({
  organizationInfo: t.prismaField({
    type: OrganizationInfo,
    nullable: true,
    description: "Figures about an organization of the caller's, by default the active one; null when there is none.",
    args: {
      organizationId: t.arg.int({ description: 'Row id of the organization; defaults to the active organization.' }),
    },
    resolve: (query, _root, args, ctx) =>
      whenId(query, args.organizationId ?? principalOf(ctx).activeOrganizationId, (selection, id) =>
        prisma().organization.findUnique({
          ...selection,
          where: { id, AND: [tenancyWhere('Organization', principalOf(ctx))] },
        }),
      ),
  }),
  rateChoices: t.field({
    type: [Choice],
    description: 'The rates an organization can be on.',
    resolve: async () => {
      const rates = await prisma().rate.findMany({ select: { id: true, name: true }, orderBy: { id: 'asc' } });
      return rates.map((rate) => ({ value: rate.id, label: rate.name }));
    },
  }),
}));

async function checkRate(client: Transaction, rateId: number | null | undefined): Promise<void> {
  if (rateId != null && !(await client.rate.findUnique({ where: { id: rateId }, select: { id: true } }))) {
    throw badUserInput(`rateId ${rateId} is not a rate`, 'input.rateId');
  }
}

defineCrudMutations({
  model: 'Organization',
  typeName: 'Organization',
  label: 'Organization',
  action: 'manageOrganization',
  // An organization is its own place: there is no parent to move it to.
  parent: 'id',
  fields: {
    name: { type: 'String', required: true },
    rateId: { type: 'Int', description: 'Row id of a rate (see rateChoices); null for none.' },
  },
  check: (tx, data) => checkRate(tx, data.rateId),
  operations: ['update'],
});

const CreateOrganizationInput = builder.inputType('CreateOrganizationInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Not empty; at most 255 characters.' }),
    rateId: t.int({ description: 'Row id of a rate (see rateChoices); the FREE rate when omitted.' }),
  }),
});

const CreateOrganizationPayload = builder.objectRef<{ rowId: number }>('CreateOrganizationPayload').implement({
  fields: (t) => ({
    organization: t.prismaField({
      type: Organization,
      resolve: (query, payload) => changedRow('Organization', query, payload.rowId),
    }),
  }),
});

const DeleteOrganizationInput = builder.inputType('DeleteOrganizationInput', {
  fields: (t) => ({
    ...rowTargetFields(t, 'organization'),
    expectedVersion: expectedVersionField(t),
    confirmName: t.string({
      required: true,
      description: "The organization's name, exactly, to confirm that everything in it goes.",
    }),
  }),
});

builder.mutationFields((t) => ({
  createOrganization: t.field({
    type: CreateOrganizationPayload,
    description:
      'Creates an organization with the caller as its owner; it becomes the active one if the caller had none.',
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const name = input.name.trim();
      if (name === '' || name.length > 255) throw badUserInput('name must be 1 to 255 characters', 'input.name');
      const { userId } = principalOf(ctx);
      const change: Change = { method: 'CREATE', entityType: 'Organization', organizationId: (created) => created.id };
      const organization = await recordChange(ctx, change, async (tx) => {
        await checkRate(tx, input.rateId);
        const rateId =
          input.rateId ?? (await tx.rate.findUnique({ where: { code: 'FREE' }, select: { id: true } }))?.id ?? null;
        const created = await tx.organization.create({ data: { name, rateId }, select: { id: true } });
        await tx.userOrganization.create({ data: { userId, organizationId: created.id, role: 'OWNER' } });
        await tx.user.updateMany({
          where: { id: userId, activeOrganizationId: null },
          data: { activeOrganizationId: created.id },
        });
        return created;
      });
      forgetUser(userId);
      return { rowId: organization.id };
    },
  }),
  deleteOrganization: t.field({
    type: deletedPayload('DeleteOrganizationPayload', 'Organization'),
    description:
      'Deletes an organization with everything in it (boards, libraries, files, members, invites, its action log), in one transaction. ' +
      'Members working in it are moved to another of their organizations, or to none.',
    args: { input: t.arg({ type: DeleteOrganizationInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { id } = await findForChange(ctx, 'Organization', targetRowId(input, 'Organization'), 'Organization');
      authorize(ctx, 'manageOrganization', id);
      const { name } = await prisma().organization.findUniqueOrThrow({ where: { id }, select: { name: true } });
      if (input.confirmName.trim() !== name)
        throw badUserInput("confirmName does not match the organization's name", 'input.confirmName');
      let members: { userId: number }[] = [];
      // Logged outside the organization: its own log goes with it.
      await recordChange(ctx, { method: 'DELETE', entityType: 'Organization', organizationId: null }, async (tx) => {
        members = await tx.userOrganization.findMany({ where: { organizationId: id }, select: { userId: true } });
        await reassignActiveOrganization(tx, id);
        // Boards before libraries, classes before textures: those references restrict deletion.
        await tx.whiteboard.deleteMany({ where: { organizationId: id } });
        await tx.classConf.deleteMany({ where: { library: { organizationId: id } } });
        await tx.userActionLog.deleteMany({ where: { organizationId: id } });
        return atExpectedVersion(tx, 'Organization', id, input.expectedVersion, 'Organization', (where) =>
          tx.organization.delete({ where, select: { id: true } }),
        );
      });
      for (const member of members) forgetUser(member.userId);
      return { rowId: id };
    },
  }),
}));
