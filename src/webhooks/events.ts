import { hash } from 'node:crypto';
import type { EventKind } from '../live/events.js';
import { encodeGlobalId } from '../schema/relay-id.js';
import type { WebhookChange } from './feed.js';

/**
 * The types whose changes an organization's endpoints may receive: every row an administrator of the
 * organization may read. API keys are not among them: a key is its owner's alone.
 */
export const webhookTypes = [
  'Organization',
  'Membership',
  'UserInvite',
  'User',
  'File',
  'Whiteboard',
  'DataStream',
  'DataStreamConnection',
  'Slide',
  'WhiteboardObject',
  'WhiteboardObjectInstance',
  'WhiteboardObjectAttribute',
  'WhiteboardObjectConnection',
  'WhiteboardHighlightGroup',
  'WhiteboardHighlight',
  'ObjectRepositoryEntry',
  'Library',
  'ClassConf',
  'ClassConfAttribute',
  'Texture',
] as const;

export const eventKinds: readonly EventKind[] = [
  'CREATED',
  'UPDATED',
  'DELETED',
  'REORDERED',
  'ARCHIVED',
  'UNARCHIVED',
  'MOVED',
];

/** `WhiteboardObjectInstance` -> `whiteboard_object_instance`. */
const snake = (type: string) => type.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();

const typesBySnake = new Map<string, string>(webhookTypes.map((type) => [snake(type), type]));

/** A change's event type, as endpoints subscribe to it and the body's `type` names it: `slide.updated`. */
export const eventTypeOf = (change: Pick<WebhookChange, 'type' | 'kind'>) =>
  `${snake(change.type)}.${change.kind.toLowerCase()}`;

/** Why an endpoint's event type is not one: `*`, `<type>.*` or `<type>.<kind>`; undefined when it is. */
export function eventTypeProblem(eventType: string): string | undefined {
  if (eventType === '*') return undefined;
  const [type = '', kind, ...rest] = eventType.split('.');
  if (!typesBySnake.has(type) || kind === undefined || rest.length > 0)
    return `"${eventType}" is not an event type: <type>.<kind>, <type>.* or *, where <type> is one of ${[...typesBySnake.keys()].join(', ')}`;
  if (kind !== '*' && !eventKinds.includes(kind.toUpperCase() as EventKind))
    return `"${eventType}" names no kind of change: one of ${eventKinds.map((each) => each.toLowerCase()).join(', ')}, or *`;
  return undefined;
}

/** What an endpoint asks for: event types, and the boards (none: all, and changes on no board). */
export interface EndpointFilter {
  eventTypes: readonly string[];
  whiteboardIds: readonly number[];
}

/** Whether the endpoint receives the change: a type it may read, an event type it names, a board it names. */
export function wants(endpoint: EndpointFilter, change: WebhookChange): boolean {
  if (!typesBySnake.has(snake(change.type))) return false;
  const eventType = eventTypeOf(change);
  const named = endpoint.eventTypes.some(
    (wanted) => wanted === '*' || wanted === eventType || wanted === `${snake(change.type)}.*`,
  );
  if (!named) return false;
  return (
    endpoint.whiteboardIds.length === 0 ||
    (change.whiteboardId !== null && endpoint.whiteboardIds.includes(change.whiteboardId))
  );
}

/** The `webhook-id` of a change: derived from its cursor, so a change read twice is one message the receiver can tell. */
export const messageIdOf = (change: Pick<WebhookChange, 'cursor'>) =>
  `msg_${hash('sha256', change.cursor, 'base64url').slice(0, 24)}`;

/**
 * The body every attempt sends (the Standard Webhooks shape: `type`, `timestamp`, `data`): the change
 * by reference, as a subscription's event names it, with its cursor, when and who. The row's content
 * is the receiver's to read with a key of its own, under that key's access.
 */
export function webhookBody(change: WebhookChange): string {
  return JSON.stringify({
    type: eventTypeOf(change),
    timestamp: change.committedAt.toISOString(),
    data: {
      kind: change.kind,
      type: change.type,
      rowId: change.rowId,
      id: encodeGlobalId(change.type, change.rowId),
      ...(change.rowIds && { rowIds: change.rowIds }),
      whiteboardId: change.whiteboardId,
      organizationId: change.organizationId,
      cursor: change.cursor,
      committedAt: change.committedAt.toISOString(),
      actor: change.actor,
    },
  });
}
