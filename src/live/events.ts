/** The outbox (prisma/schema.prisma, LiveEvent): writes add their events inside their transaction, so only commits are read. */
export const EVENT_TABLE = 'live_event';

/** What happened to a row, as subscribers see it. */
export type EventKind = 'CREATED' | 'UPDATED' | 'DELETED' | 'REORDERED' | 'ARCHIVED' | 'UNARCHIVED' | 'MOVED';

/**
 * One change, by reference: the node is loaded at delivery with the subscriber's own access, so an
 * event stays a few dozen bytes whatever the row holds.
 */
export interface LiveEvent {
  kind: EventKind;
  /** The GraphQL type of the changed row (`Slide`, `Whiteboard`, ...). */
  type: string;
  rowId: number;
  organizationId: number | null;
  /** The board the row is on; null for rows that are on no board. */
  whiteboardId: number | null;
  /** MOVED: the object instances moved on the board (`rowId`), in the order the mutation named them. */
  rowIds?: number[];
}

export const encodeEvent = (event: LiveEvent): string => JSON.stringify(event);

export function decodeEvent(payload: string): LiveEvent | undefined {
  try {
    const event = JSON.parse(payload) as LiveEvent;
    return typeof event?.type === 'string' && Number.isInteger(event.rowId) ? event : undefined;
  } catch {
    return undefined;
  }
}
