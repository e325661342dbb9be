import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { rowIdNode } from './global-id.js';
import { whenId } from './loaders.js';
import { ActionMethod, ActionMethodFilter, CredentialKind } from './enums.js';
import { connectionOptions, withVisibleCursor, type PageArgs } from './pagination.js';
import { defineRootFields } from './root-fields.js';

/**
 * A row the entry names by id, as the caller may see it: the log holds no foreign keys, so the row
 * may be gone (a deleted user) as well as out of the caller's sight; both read null.
 */
const namedRow = <M extends 'User' | 'Organization'>(model: M, description: string) => ({
  type: model,
  nullable: true as const,
  description,
});

builder.prismaNode('UserActionLog', {
  ...rowIdNode('UserActionLog'),
  description: 'One successful change: who changed which entity, in which organization, when.',
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    userId: t.exposeInt('userId'),
    organizationId: t.exposeInt('organizationId', { nullable: true }),
    method: t.expose('method', { type: ActionMethod }),
    credential: t.expose('credential', {
      type: CredentialKind,
      nullable: true,
      description:
        'How the user was signed in: an API key or a bearer token; null for entries of no credential (demo data, a registration by invite, entries older than the field).',
    }),
    entityType: t.exposeString('entityType'),
    entityId: t.exposeInt('entityId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    user: t.prismaField({
      ...namedRow('User', 'Null when the user was deleted since, or shares no organization with the caller.'),
      resolve: (query, entry, _args, ctx) => ctx.loaders.row('User', { ...query }, entry.userId),
    }),
    organization: t.prismaField({
      ...namedRow('Organization', 'Null for an entry of no organization, or one the caller is not in.'),
      resolve: (query, entry, _args, ctx) =>
        whenId(query, entry.organizationId, (selection, id) => ctx.loaders.row('Organization', selection, id)),
    }),
  }),
});

defineRootFields({
  model: 'UserActionLog',
  list: 'actionLogs',
  single: 'actionLog',
  filter: {
    userId: 'Int',
    organizationId: 'Int',
    method: ActionMethodFilter,
    entityType: 'String',
    entityId: 'Int',
    createdAt: 'DateTime',
  },
  order: ['id', 'createdAt', 'entityType'],
});

builder.prismaObjectField('Organization', 'actionLogs', (t) =>
  t.prismaConnection({
    type: 'UserActionLog',
    ...connectionOptions,
    description: "The organization's action log, newest first.",
    totalCount: (organization) => prisma().userActionLog.count({ where: { organizationId: organization.id } }),
    // The log holds no relation to page through: each organization's page is a read of its own.
    resolve: async (query, organization, args: PageArgs, ctx: Context) =>
      prisma().userActionLog.findMany({
        ...(await withVisibleCursor('UserActionLog', query, args, ctx)),
        where: { organizationId: organization.id },
        orderBy: { id: 'desc' },
      }),
  }),
);
