import * as prismaEnums from '../generated/prisma/enums.js';
import { builder } from './builder.js';
import { enumFilter } from './filters.js';

// The GraphQL enums mirror the database's, so a value means the same at every layer.
export const RateCode = builder.enumType(prismaEnums.RateCode, { name: 'RateCode' });
export const Role = builder.enumType(prismaEnums.Role, {
  name: 'Role',
  description: "A member's role in an organization.",
});
export const ApiKeyPermission = builder.enumType(prismaEnums.ApiKeyPermission, { name: 'ApiKeyPermission' });
export const ActionMethod = builder.enumType(prismaEnums.ActionMethod, { name: 'ActionMethod' });
export const CredentialKind = builder.enumType(prismaEnums.CredentialKind, {
  name: 'CredentialKind',
  description: 'What a caller presented: an API key, or the bearer token of an OpenID Connect issuer.',
});
export const DataStreamConnectionDirection = builder.enumType(prismaEnums.DataStreamConnectionDirection, {
  name: 'DataStreamConnectionDirection',
});
export const ObjectConnectionDirection = builder.enumType(prismaEnums.ObjectConnectionDirection, {
  name: 'ObjectConnectionDirection',
});
export const ObjectConnectionShape = builder.enumType(prismaEnums.ObjectConnectionShape, {
  name: 'ObjectConnectionShape',
});
export const ObjectConnectionStyle = builder.enumType(prismaEnums.ObjectConnectionStyle, {
  name: 'ObjectConnectionStyle',
});
export const HighlightOperand = builder.enumType(prismaEnums.HighlightOperand, { name: 'HighlightOperand' });
export const LibraryPublishedStatus = builder.enumType(prismaEnums.LibraryPublishedStatus, {
  name: 'LibraryPublishedStatus',
});
export const LibraryClassType = builder.enumType(prismaEnums.LibraryClassType, { name: 'LibraryClassType' });
export const ClassConfAttributeType = builder.enumType(prismaEnums.ClassConfAttributeType, {
  name: 'ClassConfAttributeType',
});

export const WebhookDeliveryState = builder.enumType(prismaEnums.WebhookDeliveryState, {
  name: 'WebhookDeliveryState',
  description:
    'Where a webhook delivery stands: PENDING (waiting for an attempt, or in one), DELIVERED (answered 2xx), DEAD (given up after 24 hours of retries: a dead letter, redelivered on request).',
});
export const WebhookDisabledReason = builder.enumType(prismaEnums.WebhookDisabledReason, {
  name: 'WebhookDisabledReason',
  description: 'Who disabled a webhook endpoint: an ADMINISTRATOR, or its receiver, by answering 410 Gone (GONE).',
});

export const RoleFilter = enumFilter(Role);
export const ApiKeyPermissionFilter = enumFilter(ApiKeyPermission);
export const ActionMethodFilter = enumFilter(ActionMethod);
export const LibraryPublishedStatusFilter = enumFilter(LibraryPublishedStatus);
export const LibraryClassTypeFilter = enumFilter(LibraryClassType);
export const ClassConfAttributeTypeFilter = enumFilter(ClassConfAttributeType);
export const HighlightOperandFilter = enumFilter(HighlightOperand);
export const RateCodeFilter = enumFilter(RateCode);
