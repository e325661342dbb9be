import type { Position } from './positions.js';

/** What happened to a row, as subscribers see it. */
export type EventKind = 'CREATED' | 'UPDATED' | 'DELETED' | 'REORDERED' | 'ARCHIVED' | 'UNARCHIVED' | 'MOVED';

/**
 * One change, by reference, as the change log tells it: the node is loaded at delivery with the subscriber's own access, so an
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
  /** Its place in the change log, and the same as the cursor a client resumes after. */
  position: Position;
  cursor: string;
}
