import { createApiKey } from '../auth/api-keys.js';
import { forgetKey } from '../auth/principal.js';
import { keyAllows } from '../auth/roles.js';
import { prisma } from '../db/index.js';
import { builder } from './builder.js';
import { recordChange } from './changes.js';
import { targetRowId } from './crud.js';
import { ApiKeyPermission, ApiKeyPermissionFilter } from './enums.js';
import { badUserInput, forbidden, notFound } from './errors.js';
import { rowIdNode } from './global-id.js';
import { defineRootFields } from './root-fields.js';
import { principalOf } from './context.js';
import { visibleRelation } from './relations.js';

const ApiKey = builder.prismaNode('ApiKey', {
  ...rowIdNode('ApiKey'),
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
    user: t.prismaField(visibleRelation('ApiKey', 'user')),
  }),
});

defineRootFields({
  model: 'ApiKey',
  list: 'apiKeys',
  single: 'apiKey',
  filter: {
    userId: 'Int',
    name: 'String',
    permission: ApiKeyPermissionFilter,
    expiresAt: 'DateTime',
    revokedAt: 'DateTime',
  },
  order: ['id', 'name', 'createdAt', 'lastUsedAt'],
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    permission: t.field({
      type: ApiKeyPermission,
      required: true,
      description: 'At most the permission of the key making the request.',
    }),
    expiresAt: t.field({ type: 'DateTime', description: 'When the key stops working; never when omitted.' }),
  }),
});

type ApiKeyRow = Awaited<ReturnType<typeof createApiKey>>;

const CreateApiKeyPayload = builder.objectRef<{ apiKey: ApiKeyRow; secret: string }>('CreateApiKeyPayload').implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKey, resolve: (payload) => payload.apiKey }),
    secret: t.exposeString('secret', {
      description: 'The key to send in X-API-KEY. Shown this once; only a hash is stored.',
    }),
  }),
});

const RevokeApiKeyInput = builder.inputType('RevokeApiKeyInput', {
  fields: (t) => ({
    id: t.id({ description: "Global id of one of the caller's keys; or give rowId." }),
    rowId: t.int({ description: 'Row id of the key; or give id.' }),
  }),
});

const RevokeApiKeyPayload = builder.objectRef<{ apiKey: Omit<ApiKeyRow, 'secret'> }>('RevokeApiKeyPayload').implement({
  fields: (t) => ({ apiKey: t.field({ type: ApiKey, resolve: (payload) => payload.apiKey }) }),
});

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreateApiKeyPayload,
    description: "Issues a key for the caller's own user.",
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const name = input.name.trim();
      if (!name || name.length > 100) throw badUserInput('name must be 1 to 100 characters', 'input.name');
      if (!keyAllows(principalOf(ctx).permission, input.permission))
        throw forbidden(`A ${principalOf(ctx).permission} key cannot issue a ${input.permission} key`);
      if (input.expiresAt && input.expiresAt <= new Date())
        throw badUserInput('expiresAt must be in the future', 'input.expiresAt');
      const change = {
        method: 'CREATE',
        entityType: 'ApiKey',
        organizationId: principalOf(ctx).activeOrganizationId,
        secret: true,
      } as const;
      const apiKey = await recordChange(ctx, change, (tx) =>
        createApiKey(tx, {
          userId: principalOf(ctx).userId,
          name,
          permission: input.permission,
          expiresAt: input.expiresAt,
        }),
      );
      return { apiKey, secret: apiKey.secret };
    },
  }),
  revokeApiKey: t.field({
    type: RevokeApiKeyPayload,
    description: "Stops one of the caller's keys at once.",
    args: { input: t.arg({ type: RevokeApiKeyInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const key = await prisma().apiKey.findFirst({
        where: { id: targetRowId(input, 'ApiKey'), userId: principalOf(ctx).userId },
      });
      if (!key) throw notFound('API key');
      const change = {
        method: 'UPDATE',
        entityType: 'ApiKey',
        organizationId: principalOf(ctx).activeOrganizationId,
      } as const;
      const apiKey = await recordChange(ctx, change, (tx) =>
        tx.apiKey.update({ where: { id: key.id }, data: { revokedAt: key.revokedAt ?? new Date() } }),
      );
      forgetKey(key.secretHash);
      return { apiKey };
    },
  }),
}));
