import type { EventKind } from '../live/events.js';

/** One committed change, as the change log tells it: what a webhook's body names, and nothing of the row's content. */
export interface WebhookChange {
  /** Its position in the log: a reader that has it has read every change of its organization before it. */
  cursor: string;
  kind: EventKind;
  /** The GraphQL type of the changed row (`Slide`, `Whiteboard`, ...). */
  type: string;
  rowId: number;
  /** MOVED: the object instances moved, in the order the mutation named them. */
  rowIds?: number[];
  /** The board the row is on; null for rows on no board. */
  whiteboardId: number | null;
  organizationId: number;
  committedAt: Date;
  /** Who made it, and how they signed in; null where the log knows none. */
  actor: { userId: number | null; credential: string | null };
}

/**
 * Where the dispatcher reads the changes it delivers: the change log, read by each endpoint with a
 * cursor of its own. Every method reads only committed changes.
 */
export interface ChangeFeed {
  /** The position after every change committed so far: an endpoint made now starts there. */
  head(): Promise<string>;
  /**
   * For each page asked, the changes of its organization after its `after`, in commit order, at most
   * `limit`; and the cursor the next read starts from (past what was read, even when nothing matched).
   */
  read(pages: readonly PageOf[], limit: number): Promise<{ changes: WebhookChange[]; cursor: string }[]>;
}

/** One organization's changes after a cursor. */
export interface PageOf {
  organizationId: number;
  after: string;
}
