import { resolveCursorConnection } from '@pothos/plugin-relay';
import { prisma } from '../db/index.js';
import { eventTypeProblem } from '../webhooks/events.js';
import { urlProblem } from '../webhooks/address.js';
import type { Webhooks } from '../webhooks/index.js';
import { newSigningSecret } from '../webhooks/signature.js';
import { builder, type BuilderTypes, type InputFields } from './builder.js';
import { authorize, findForChange, recordChange, type Transaction } from './changes.js';
import { principalOf, type Context } from './context.js';
import { deletedPayload, rowTargetFields, targetRowId } from './crud.js';
import { WebhookDeliveryState, WebhookDisabledReason } from './enums.js';
import { badUserInput, forbidden } from './errors.js';
import { rowIdNode } from './global-id.js';
import { changedRow } from './loaders.js';
import { maxPageSize } from './pagination.js';
import { defineRootFields } from './root-fields.js';
import { atExpectedVersion, expectedVersionField, versionOptions, type VersionedWhere } from './versions.js';

// Webhook endpoints of an organization, managed by those who may manageWebhooks (src/auth/roles.ts),
// who alone see them: a URL may carry its receiver's credential. The signing secret is shown once,
// at creation and at each rotation; the database keeps it encrypted (src/webhooks/secret-box.ts).

/** Most endpoints of one organization: each one multiplies the organization's deliveries. */
export const MAX_ENDPOINTS = 50;
const MAX_EVENT_TYPES = 50;
const MAX_BOARDS = 100;
/** Longest grace period of a rotated secret. */
const MAX_GRACE_HOURS = 7 * 24;
/** Most dead letters one redelivery takes. */
const MAX_REDELIVERED = 1000;

const WebhookEndpoint = builder.prismaNode('WebhookEndpoint', {
  ...rowIdNode('WebhookEndpoint'),
  description:
    "Where an organization's changes are sent, signed (Standard Webhooks). Seen only by those who manage the organization's webhooks; the signing secret never again after its creation or rotation.",
  fields: (t) => ({
    rowId: t.exposeInt('id'),
    version: t.exposeInt('version', versionOptions),
    organizationId: t.exposeInt('organizationId'),
    url: t.exposeString('url'),
    description: t.exposeString('description'),
    eventTypes: t.exposeStringList('eventTypes', {
      description: 'Event types it receives: `whiteboard.updated`, `slide.*` (every kind of change of a type), or `*`.',
    }),
    whiteboardIds: t.exposeIntList('whiteboardIds', {
      description: 'Boards whose changes it receives; empty: every change of the organization, on a board or not.',
    }),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.expose('disabledReason', { type: WebhookDisabledReason, nullable: true }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Until when the secret before the last rotation signs too; null when it no longer does.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    organization: t.relation('organization'),
  }),
});

defineRootFields({
  model: 'WebhookEndpoint',
  list: 'webhookEndpoints',
  single: 'webhookEndpoint',
  filter: { organizationId: 'Int', url: 'String', enabled: 'Boolean', createdAt: 'DateTime' },
  order: ['id', 'url', 'createdAt'],
});

interface DeliveryRow {
  id: bigint;
  endpointId: number;
  messageId: string;
  eventType: string;
  lane: number;
  body: string;
  state: 'PENDING' | 'DELIVERED' | 'DEAD';
  attempts: number;
  nextAttemptAt: Date;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

const WebhookDelivery = builder.objectRef<DeliveryRow>('WebhookDelivery').implement({
  description: 'One change sent to one endpoint, and how its attempts went.',
  fields: (t) => ({
    deliveryId: t.string({
      description: 'Names the delivery for redeliverWebhookDeliveries (a 64-bit number, as a string).',
      resolve: (row) => row.id.toString(),
    }),
    endpointId: t.exposeInt('endpointId'),
    messageId: t.exposeString('messageId', {
      description:
        'The `webhook-id` header: the same on every attempt and redelivery, for the receiver to tell a message it had.',
    }),
    eventType: t.exposeString('eventType'),
    whiteboardId: t.int({ nullable: true, resolve: (row) => row.lane || null }),
    state: t.expose('state', { type: WebhookDeliveryState }),
    attempts: t.exposeInt('attempts'),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it is attempted next, while PENDING.',
      resolve: (row) => (row.state === 'PENDING' ? row.nextAttemptAt : null),
    }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    lastStatus: t.exposeInt('lastStatus', {
      nullable: true,
      description: 'The HTTP status of the last attempt; null when it got none (refused, timed out).',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'What went wrong at the last attempt, or the start of the answer (at most 200 characters).',
    }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    body: t.exposeString('body', { description: 'The JSON body every attempt sends.' }),
  }),
});

/** An endpoint the caller may manage: one they cannot see is not found, one they may only see is forbidden. */
async function managedEndpoint(ctx: Context, rowId: number) {
  const endpoint = await findForChange(ctx, 'WebhookEndpoint', rowId, 'Webhook endpoint');
  authorize(ctx, 'manageWebhooks', endpoint.organizationId);
  return endpoint;
}

/** A delivery's id (a 64-bit number) as the caller gave it, checked; `refusal` says what it is not, at `field`. */
function deliveryIdOf(text: string, field: string, refusal: string): string {
  if (!/^\d{1,19}$/.test(text) || BigInt(text) > 2n ** 63n - 1n) throw badUserInput(refusal, field);
  return text;
}

const cursorOf = (text: string, argument: string) =>
  BigInt(deliveryIdOf(text, argument, `Argument "${argument}" is not a valid cursor`));

builder.queryField('webhookDeliveries', (t) =>
  t.connection(
    {
      type: WebhookDelivery,
      description: "An endpoint's deliveries, newest first; `state: DEAD` lists its dead letters.",
      args: {
        endpointId: t.arg.int({ required: true, description: 'Row id of the webhook endpoint.' }),
        state: t.arg({ type: WebhookDeliveryState }),
      },
      resolve: async (_root, args, ctx) => {
        const endpoint = await findForChange(ctx, 'WebhookEndpoint', args.endpointId, 'Webhook endpoint');
        const where = { endpointId: endpoint.id, ...(args.state && { state: args.state }) };
        const connection = await resolveCursorConnection<Promise<DeliveryRow[]>>(
          { args, toCursor: (row) => row.id.toString(), defaultSize: 20, maxSize: maxPageSize },
          ({ before, after, limit, inverted }) =>
            prisma().webhookDelivery.findMany({
              where: {
                ...where,
                id: {
                  ...(after && { lt: cursorOf(after, 'after') }),
                  ...(before && { gt: cursorOf(before, 'before') }),
                },
              },
              orderBy: { id: inverted ? 'asc' : 'desc' },
              take: limit,
            }),
        );
        return Object.assign(connection, { count: () => prisma().webhookDelivery.count({ where }) });
      },
    },
    {
      fields: (c) => ({
        totalCount: c.int({ resolve: (connection) => (connection as unknown as { count(): Promise<number> }).count() }),
      }),
    },
  ),
);

/** The instance's webhooks, or the refusal of a change that needs them while they are off. */
function webhooksRunning(ctx: Context): Webhooks {
  const webhooks = ctx.webhooks;
  if (!webhooks)
    throw forbidden('Webhooks are off on this gateway: its operator sets WEBHOOK_ENCRYPTION_KEY (docs/webhooks.md)');
  return webhooks;
}

/** The endpoint's settings as given, checked; each refusal names its input field. */
async function checkedSettings(
  input: {
    url?: string | null;
    eventTypes?: readonly string[] | null;
    whiteboardIds?: readonly number[] | null;
    description?: string | null;
  },
  organizationId: number,
  allowPrivate: boolean,
) {
  const url = input.url?.trim();
  const urlRefusal = url === undefined ? undefined : urlProblem(url, allowPrivate);
  if (urlRefusal) throw badUserInput(urlRefusal, 'input.url');
  if (input.url === null) throw badUserInput('url cannot be null', 'input.url');
  const eventTypes = input.eventTypes && [...new Set(input.eventTypes.map((type) => type.trim()))];
  if (input.eventTypes === null || (eventTypes && (eventTypes.length === 0 || eventTypes.length > MAX_EVENT_TYPES)))
    throw badUserInput(`eventTypes must name 1 to ${MAX_EVENT_TYPES} event types`, 'input.eventTypes');
  eventTypes?.forEach((type, index) => {
    const problem = eventTypeProblem(type);
    if (problem) throw badUserInput(problem, `input.eventTypes[${index}]`);
  });
  const whiteboardIds = input.whiteboardIds === null ? [] : input.whiteboardIds && [...new Set(input.whiteboardIds)];
  if (whiteboardIds && whiteboardIds.length > MAX_BOARDS)
    throw badUserInput(`whiteboardIds may name at most ${MAX_BOARDS} boards`, 'input.whiteboardIds');
  if (whiteboardIds?.length) {
    const found = await prisma().whiteboard.findMany({
      where: { id: { in: whiteboardIds }, organizationId },
      select: { id: true },
    });
    const boards = new Set(found.map((board) => board.id));
    const missing = whiteboardIds.findIndex((id) => !boards.has(id));
    if (missing >= 0)
      throw badUserInput(
        `whiteboardIds: ${whiteboardIds[missing]} is not a board of the organization`,
        `input.whiteboardIds[${missing}]`,
      );
  }
  const description = input.description === null ? '' : input.description?.trim();
  if (description && description.length > 255)
    throw badUserInput('description is longer than 255 characters', 'input.description');
  return { url, eventTypes, whiteboardIds, description };
}

const settingsFields = (t: InputFields, required: boolean) => ({
  url: t.string({
    required,
    description: 'https:// (http:// to a loopback host only where WEBHOOK_ALLOW_PRIVATE is set); no credentials.',
  }),
  eventTypes: t.stringList({
    required,
    description: '1 to 50 of `<type>.<kind>` (`slide.updated`), `<type>.*` or `*`; docs/webhooks.md lists them.',
  }),
  whiteboardIds: t.intList({
    description: 'Boards of the organization whose changes it receives (at most 100); none: every change.',
  }),
  description: t.string({ description: 'At most 255 characters.' }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    organizationId: t.int({ description: "Row id of the organization; the caller's active one when omitted." }),
    ...settingsFields(t, true),
    enabled: t.boolean({ defaultValue: true }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    ...rowTargetFields(t, 'webhook endpoint'),
    expectedVersion: expectedVersionField(t),
    ...settingsFields(t, false),
  }),
});

/** The input of a change of one endpoint that takes nothing else but the version it expects, named after the mutation. */
const targetInput = (name: string) =>
  builder.inputType(name, {
    fields: (t) => ({ ...rowTargetFields(t, 'webhook endpoint'), expectedVersion: expectedVersionField(t) }),
  });

const DeleteWebhookEndpointInput = targetInput('DeleteWebhookEndpointInput');

const RotateWebhookEndpointSecretInput = builder.inputType('RotateWebhookEndpointSecretInput', {
  fields: (t) => ({
    ...rowTargetFields(t, 'webhook endpoint'),
    expectedVersion: expectedVersionField(t),
    graceHours: t.int({
      defaultValue: 24,
      description: `Hours the old secret goes on signing beside the new one (0 to ${MAX_GRACE_HOURS}; 0: it stops at once).`,
    }),
  }),
});

const RedeliverWebhookDeliveriesInput = builder.inputType('RedeliverWebhookDeliveriesInput', {
  fields: (t) => ({
    ...rowTargetFields(t, 'webhook endpoint'),
    deliveryIds: t.stringList({
      description: `Deliveries of the endpoint to send again (DELIVERED or DEAD, at most 100); none: every dead letter, at most ${MAX_REDELIVERED}.`,
    }),
  }),
});

/** A mutation's answer names the endpoint by id; the endpoint is read as the payload's selection plans it. */
function endpointOf<P extends { rowId: number }>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, P>) {
  return t.prismaField({
    type: WebhookEndpoint,
    resolve: (query, payload) => changedRow('WebhookEndpoint', query, payload.rowId),
  });
}

const WebhookEndpointPayload = builder
  .objectRef<{ rowId: number }>('WebhookEndpointPayload')
  .implement({ fields: (t) => ({ webhookEndpoint: endpointOf(t) }) });

const secretPayload = (name: string) =>
  builder.objectRef<{ rowId: number; secret: string }>(name).implement({
    fields: (t) => ({
      webhookEndpoint: endpointOf(t),
      secret: t.exposeString('secret', {
        description:
          'The signing secret (`whsec_...`), shown this once: the receiver verifies `webhook-signature` with it.',
      }),
    }),
  });

const RedeliverWebhookDeliveriesPayload = builder
  .objectRef<{ rowId: number; count: number }>('RedeliverWebhookDeliveriesPayload')
  .implement({
    fields: (t) => ({
      redeliveredCount: t.exposeInt('count', { description: 'Deliveries queued again.' }),
      webhookEndpoint: endpointOf(t),
    }),
  });

const change = (method: 'CREATE' | 'UPDATE' | 'DELETE', organizationId: number) =>
  ({ method, entityType: 'WebhookEndpoint', organizationId }) as const;
/** A change whose answer shows a new signing secret once: never kept under an Idempotency-Key. */
const secretChange = (method: 'CREATE' | 'UPDATE', organizationId: number) =>
  ({ ...change(method, organizationId), secret: true }) as const;

// Redelivery writes a copy at the end of the endpoint's queue (new ids, the same message) and drops the
// old row: the copy waits behind nothing older, and its 24 hours of retries start again.
const redeliverSql = `WITH gone AS (
  DELETE FROM webhook_delivery WHERE id IN (
    SELECT id FROM webhook_delivery
    WHERE endpoint_id = $1 AND state <> 'PENDING' AND ($2::bigint[] IS NULL AND state = 'DEAD' OR id = ANY($2::bigint[]))
    ORDER BY id LIMIT $3::int)
  RETURNING id, endpoint_id, message_id, event_type, lane, body
)
INSERT INTO webhook_delivery (endpoint_id, message_id, event_type, lane, body)
SELECT endpoint_id, message_id, event_type, lane, body FROM gone ORDER BY id
RETURNING 1`;

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: secretPayload('CreateWebhookEndpointPayload'),
    description:
      "Adds an endpoint to an organization: from now on each change it asks for is POSTed to it, signed with the secret this answer shows once. Needs the role that may manageWebhooks; the organization's changes before now are not sent.",
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const webhooks = webhooksRunning(ctx);
      const organizationId = input.organizationId ?? principalOf(ctx).activeOrganizationId;
      if (organizationId == null)
        throw badUserInput(
          'organizationId is required when the caller has no active organization',
          'input.organizationId',
        );
      const organization = await findForChange(ctx, 'Organization', organizationId, 'Organization');
      authorize(ctx, 'manageWebhooks', organization.id);
      const settings = await checkedSettings(input, organization.id, webhooks.allowPrivate);
      const secret = newSigningSecret();
      const cursor = webhooks.feed ? await webhooks.feed.head() : null;
      const endpoint = await recordChange(ctx, secretChange('CREATE', organization.id), async (tx) => {
        if ((await tx.webhookEndpoint.count({ where: { organizationId: organization.id } })) >= MAX_ENDPOINTS)
          throw badUserInput(
            `an organization may have at most ${MAX_ENDPOINTS} webhook endpoints`,
            'input.organizationId',
          );
        return tx.webhookEndpoint.create({
          data: {
            organizationId: organization.id,
            url: settings.url!,
            eventTypes: settings.eventTypes!,
            whiteboardIds: settings.whiteboardIds ?? [],
            description: settings.description ?? '',
            enabled: input.enabled ?? true,
            disabledReason: input.enabled === false ? 'ADMINISTRATOR' : null,
            secret: webhooks.box.seal(secret, organization.id),
            cursor,
          },
          select: { id: true },
        });
      });
      return { rowId: endpoint.id, secret };
    },
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointPayload,
    description: "Changes an endpoint's URL, event types, boards or description; what is omitted stays.",
    args: { input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const endpoint = await managedEndpoint(ctx, targetRowId(input, 'WebhookEndpoint'));
      const settings = await checkedSettings(input, endpoint.organizationId, ctx.webhooks?.allowPrivate ?? false);
      await recordChange(ctx, change('UPDATE', endpoint.organizationId), (tx) =>
        atEndpointVersion(tx, endpoint.id, input.expectedVersion, (where) =>
          tx.webhookEndpoint.update({
            where,
            data: {
              url: settings.url,
              eventTypes: settings.eventTypes ?? undefined,
              whiteboardIds: settings.whiteboardIds,
              description: settings.description,
            },
            select: { id: true },
          }),
        ),
      );
      return { rowId: endpoint.id };
    },
  }),
  enableWebhookEndpoint: t.field({
    type: WebhookEndpointPayload,
    description:
      'Sends to an endpoint again: the changes it has not had yet (since it was disabled, as far as the change log keeps them) go first, in order.',
    args: { input: t.arg({ type: targetInput('EnableWebhookEndpointInput'), required: true }) },
    resolve: (_root, { input }, ctx) => setEnabled(ctx, input, true),
  }),
  disableWebhookEndpoint: t.field({
    type: WebhookEndpointPayload,
    description: 'Stops sending to an endpoint; its changes wait in the change log until it is enabled again.',
    args: { input: t.arg({ type: targetInput('DisableWebhookEndpointInput'), required: true }) },
    resolve: (_root, { input }, ctx) => setEnabled(ctx, input, false),
  }),
  deleteWebhookEndpoint: t.field({
    type: deletedPayload('DeleteWebhookEndpointPayload', 'WebhookEndpoint'),
    description: 'Deletes an endpoint with its deliveries.',
    args: { input: t.arg({ type: DeleteWebhookEndpointInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const endpoint = await managedEndpoint(ctx, targetRowId(input, 'WebhookEndpoint'));
      await recordChange(ctx, change('DELETE', endpoint.organizationId), (tx) =>
        atEndpointVersion(tx, endpoint.id, input.expectedVersion, (where) =>
          tx.webhookEndpoint.delete({ where, select: { id: true } }),
        ),
      );
      return { rowId: endpoint.id };
    },
  }),
  rotateWebhookEndpointSecret: t.field({
    type: secretPayload('RotateWebhookEndpointSecretPayload'),
    description:
      'Gives an endpoint a new signing secret, shown this once; every attempt is signed with both the new and the old one until the grace period ends, so the receiver can switch without missing a delivery.',
    args: { input: t.arg({ type: RotateWebhookEndpointSecretInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const webhooks = webhooksRunning(ctx);
      const graceHours = input.graceHours ?? 24;
      if (graceHours < 0 || graceHours > MAX_GRACE_HOURS)
        throw badUserInput(`graceHours must be between 0 and ${MAX_GRACE_HOURS}`, 'input.graceHours');
      const endpoint = await managedEndpoint(ctx, targetRowId(input, 'WebhookEndpoint'));
      const secret = newSigningSecret();
      await recordChange(ctx, secretChange('UPDATE', endpoint.organizationId), async (tx) => {
        const { secret: current } = await tx.webhookEndpoint.findUniqueOrThrow({
          where: { id: endpoint.id },
          select: { secret: true },
        });
        // At the expected version, the secret read is the one this update replaces.
        return atEndpointVersion(tx, endpoint.id, input.expectedVersion, (where) =>
          tx.webhookEndpoint.update({
            where,
            data: {
              secret: webhooks.box.seal(secret, endpoint.organizationId),
              previousSecret: graceHours > 0 ? current : null,
              previousSecretExpiresAt: graceHours > 0 ? new Date(Date.now() + graceHours * 3_600_000) : null,
            },
            select: { id: true },
          }),
        );
      });
      return { rowId: endpoint.id, secret };
    },
  }),
  redeliverWebhookDeliveries: t.field({
    type: RedeliverWebhookDeliveriesPayload,
    description:
      'Sends deliveries of an endpoint again, after its newest: dead letters (all of them when no ids are given) or delivered ones, each as the same message (same `webhook-id`) with a new 24 hours of retries.',
    args: { input: t.arg({ type: RedeliverWebhookDeliveriesInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const endpoint = await managedEndpoint(ctx, targetRowId(input, 'WebhookEndpoint'));
      const ids = input.deliveryIds?.map((id, index) =>
        deliveryIdOf(id, `input.deliveryIds[${index}]`, `"${id}" is not a delivery id`),
      );
      if (ids && (ids.length === 0 || ids.length > maxPageSize))
        throw badUserInput(`deliveryIds must name 1 to ${maxPageSize} deliveries`, 'input.deliveryIds');
      let count = 0;
      await recordChange(ctx, change('UPDATE', endpoint.organizationId), async (tx) => {
        count = await tx.$executeRawUnsafe(redeliverSql, endpoint.id, ids ?? null, MAX_REDELIVERED);
        return { id: endpoint.id };
      });
      ctx.webhooks?.dispatcher.wake();
      return { rowId: endpoint.id, count };
    },
  }),
}));

/** A write of one endpoint at the version its input expects. */
const atEndpointVersion = <T>(
  tx: Transaction,
  rowId: number,
  expected: number | null | undefined,
  write: (where: VersionedWhere) => Promise<T>,
) => atExpectedVersion(tx, 'WebhookEndpoint', rowId, expected, 'Webhook endpoint', write);

async function setEnabled(
  ctx: Context,
  input: typeof DeleteWebhookEndpointInput.$inferInput,
  enabled: boolean,
): Promise<{ rowId: number }> {
  const endpoint = await managedEndpoint(ctx, targetRowId(input, 'WebhookEndpoint'));
  await recordChange(ctx, change('UPDATE', endpoint.organizationId), (tx) =>
    atEndpointVersion(tx, endpoint.id, input.expectedVersion, (where) =>
      tx.webhookEndpoint.update({
        where,
        data: { enabled, disabledReason: enabled ? null : 'ADMINISTRATOR' },
        select: { id: true },
      }),
    ),
  );
  if (enabled) ctx.webhooks?.dispatcher.wake();
  return { rowId: endpoint.id };
}
