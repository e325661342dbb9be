import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type { Principal } from '../auth/principal.js';
import { organizationOf, organizationSelect } from '../auth/tenancy.js';
import type { LiveEvent } from '../live/events.js';
import { decodeCursor, type Cursor } from '../live/positions.js';
import { openStream, type Delivery } from '../live/stream.js';
import { builder } from './builder.js';
import { notFound } from './errors.js';
import { encodeGlobalId } from './relay-id.js';
import { principalOf, type Context } from './context.js';
import { rowsByIds } from './loaders.js';

builder.subscriptionType({});

const EventKind = builder.enumType('LiveEventKind', {
  values: ['CREATED', 'UPDATED', 'DELETED', 'REORDERED', 'ARCHIVED', 'UNARCHIVED', 'MOVED'] as const,
});

const eventFields = builder.interfaceRef<LiveEvent>('LiveEvent').implement({
  description: 'A committed change, told to subscribers.',
  fields: (t) => ({
    kind: t.field({ type: EventKind, resolve: (event) => event.kind }),
    cursor: t.exposeString('cursor', {
      description:
        'Its place in the change log: subscribe again with `after` (or `Last-Event-ID` over SSE), or page `changes`, from it.',
    }),
    type: t.exposeString('type', { description: 'GraphQL type of the changed node.' }),
    rowId: t.exposeInt('rowId', { description: 'Row id of the changed node.' }),
    whiteboardId: t.exposeInt('whiteboardId', { nullable: true, description: 'Row id of the board the node is on.' }),
  }),
});

const nodeOf = (event: LiveEvent) => ({ type: event.type, id: event.rowId });

/** An event that carries its node, loaded at delivery with the subscriber's own access (null if gone since). */
const eventWithNode = (name: string, description: string) =>
  builder
    .objectRef<LiveEvent>(name)
    .implement({ description, interfaces: [eventFields], fields: (t) => ({ node: t.node({ id: nodeOf }) }) });

const NodeChangedEvent = eventWithNode('NodeChangedEvent', 'A node was created or updated (kind CREATED or UPDATED).');
const ChildrenReorderedEvent = eventWithNode(
  'ChildrenReorderedEvent',
  "The children of a node (a data stream's slides or steps) were put in a new order; read them from `node`.",
);
const WhiteboardArchiveEvent = eventWithNode(
  'WhiteboardArchiveEvent',
  'A board was archived (kind ARCHIVED) or brought back (UNARCHIVED).',
);

const ObjectInstancesMovedEvent = builder.objectRef<LiveEvent>('ObjectInstancesMovedEvent').implement({
  description:
    'Object instances of one board were moved or resized together by one moveWhiteboardObjectInstances (kind MOVED; `type` Whiteboard and `rowId` name the board).',
  interfaces: [eventFields],
  fields: (t) => ({
    instanceRowIds: t.intList({
      description: 'Row ids of every instance moved, in the order the mutation named them.',
      resolve: (event) => event.rowIds ?? [],
    }),
    instances: t.prismaField({
      type: ['WhiteboardObjectInstance'],
      nullable: { list: false, items: true },
      description:
        "The instances moved, in that order, read at delivery with the subscriber's access (null for one deleted since).",
      resolve: (query, event, _args, ctx) =>
        rowsByIds('WhiteboardObjectInstance', query, event.rowIds ?? [], principalOf(ctx)),
    }),
  }),
});

const NodeDeletedEvent = builder.objectRef<LiveEvent>('NodeDeletedEvent').implement({
  description: 'A node was deleted (with everything under it); `type` and `rowId` say which.',
  interfaces: [eventFields],
  fields: (t) => ({
    deletedId: t.id({
      description: 'Global id of the deleted node.',
      resolve: (event) => encodeGlobalId(event.type, event.rowId),
    }),
  }),
});

export const WhiteboardEvent = builder.unionType('WhiteboardEvent', {
  types: [
    NodeChangedEvent,
    NodeDeletedEvent,
    ChildrenReorderedEvent,
    WhiteboardArchiveEvent,
    ObjectInstancesMovedEvent,
  ],
  resolveType: (event) =>
    ({
      CREATED: NodeChangedEvent,
      UPDATED: NodeChangedEvent,
      DELETED: NodeDeletedEvent,
      REORDERED: ChildrenReorderedEvent,
      ARCHIVED: WhiteboardArchiveEvent,
      UNARCHIVED: WhiteboardArchiveEvent,
      MOVED: ObjectInstancesMovedEvent,
    })[event.kind],
});

/**
 * An error is raised as a result, so SSE and WebSocket clients both read it: the last one of a
 * stream that ended, or CURSOR_EXPIRED before a stream that goes on. Each event's cursor rides in
 * the result's extensions too (src/http/event-ids.ts), the SSE `id:` a browser resumes with.
 */
const eventOrError = (delivery: Delivery, _args: object, ctx: Context) => {
  if (delivery instanceof GraphQLError) throw delivery;
  ctx.lastEventCursor = delivery.cursor;
  return delivery;
};

const afterDescription =
  'The cursor of the last event received: the stream first tells every change after it. Over SSE, a `Last-Event-ID` header does the same.';

/** The cursor a resuming client sent: `after`, or the `Last-Event-ID` an EventSource sends on reconnecting. */
function resumeAfter(after: string | null | undefined, ctx: Context): Cursor | undefined {
  if (after != null) return decodeCursor(after, 'after');
  const lastEventId = ctx.request.headers.get('last-event-id');
  return lastEventId ? decodeCursor(lastEventId, 'Last-Event-ID') : undefined;
}

type Subscribed = 'Whiteboard' | 'Organization';

/** Per caller and model, the lookups of the subscriptions it opens; nothing is cached. */
const subscribedLoaders = new WeakMap<Principal, Map<Subscribed, DataLoader<number, object | null>>>();

/**
 * Lookups of `model` as `principal` may see it, one statement at a time: those that come while one
 * is under way go together in the next (a burst's requests arrive in turns of their own, so merging
 * only one turn's would merge nothing).
 */
function coalescingLoader<M extends Subscribed>(model: M, principal: Principal): DataLoader<number, object | null> {
  const query = { select: organizationSelect(model) };
  let running: Promise<unknown> = Promise.resolve();
  return new DataLoader(
    (ids) => {
      const rows = rowsByIds(model, query, ids, principal);
      running = rows.catch(() => undefined);
      return rows;
    },
    { cache: false, batchScheduleFn: (dispatch) => void running.then(dispatch) },
  );
}

/**
 * The board or organization a subscription is about, as the caller may see it (another
 * organization's is not found). Clients that reconnect together (their instance lost, a deploy)
 * open hundreds of subscriptions at once, and one key's lookups then take a few statements, not one each.
 */
async function subscribed<M extends Subscribed>(
  ctx: Context,
  model: M,
  rowId: number,
): Promise<{ organizationId: number }> {
  const principal = principalOf(ctx);
  let loaders = subscribedLoaders.get(principal);
  if (!loaders) subscribedLoaders.set(principal, (loaders = new Map()));
  let loader = loaders.get(model);
  if (!loader) loaders.set(model, (loader = coalescingLoader(model, principal)));
  const row = await loader.load(rowId);
  if (!row) throw notFound(model);
  return { organizationId: organizationOf(model, row) };
}

builder.subscriptionField('whiteboardEvents', (t) =>
  t.field({
    type: WhiteboardEvent,
    description:
      'Every committed change on one board: the board itself, its data streams, slides, steps, objects, instances (moved together: one event), attribute values, connections, relations and highlights.',
    args: { whiteboardId: t.arg.int({ required: true }), after: t.arg.string({ description: afterDescription }) },
    subscribe: async (_root, { whiteboardId, after }, ctx) => {
      const cursor = resumeAfter(after, ctx);
      const board = await subscribed(ctx, 'Whiteboard', whiteboardId);
      return openStream(
        ctx,
        {
          organizationId: board.organizationId,
          log: { whiteboardId },
          accepts: (event) => event.whiteboardId === whiteboardId,
          isLast: (event) => event.type === 'Whiteboard' && event.kind === 'DELETED',
        },
        cursor,
      );
    },
    resolve: eventOrError,
  }),
);

builder.subscriptionField('organizationWhiteboardEvents', (t) =>
  t.field({
    type: WhiteboardEvent,
    description: 'Boards created, updated (renamed), archived, unarchived and deleted in one organization.',
    args: { organizationId: t.arg.int({ required: true }), after: t.arg.string({ description: afterDescription }) },
    subscribe: async (_root, { organizationId, after }, ctx) => {
      const cursor = resumeAfter(after, ctx);
      await subscribed(ctx, 'Organization', organizationId);
      return openStream(
        ctx,
        {
          organizationId,
          log: { organizationId },
          // A move names its board but changes what is on it, not the board.
          accepts: (event) =>
            event.type === 'Whiteboard' && event.kind !== 'MOVED' && event.organizationId === organizationId,
        },
        cursor,
      );
    },
    resolve: eventOrError,
  }),
);
