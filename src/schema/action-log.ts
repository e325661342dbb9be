import { builder } from './builder.js';
import { rowIdNode } from './global-id.js';
import { ActionMethod, ActionMethodFilter, CredentialKind } from './enums.js';
import { defineRootFields } from './root-fields.js';
import { visibleRelation } from './relations.js';

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
    user: t.prismaField(visibleRelation('UserActionLog', 'user')),
    organization: t.relation('organization', { nullable: true }),
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
