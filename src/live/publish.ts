import type { Client } from '../db/delegate.js';
import { boardsOf, isOnBoard } from './board-of.js';
import { encodeEvent, EVENT_TABLE, type EventKind, type LiveEvent } from './events.js';

const kindOfMethod = { CREATE: 'CREATED', UPDATE: 'UPDATED', DELETE: 'DELETED' } as const;

/**
 * Announces the rows a change wrote, from inside its transaction: the event rows appear to every
 * instance's hub when the transaction commits, and never when it rolls back.
 */
export async function publishChanges(
  tx: Client,
  change: { method: keyof typeof kindOfMethod; entityType: string; event?: EventKind },
  rows: { id: number; organizationId: number | null }[],
): Promise<void> {
  const { entityType } = change;
  const boards = isOnBoard(entityType) ? await boardsOf(tx, entityType, rows) : new Map<number, number>();
  const events = rows.map(
    (row): LiveEvent => ({
      kind: change.event ?? kindOfMethod[change.method],
      type: entityType,
      rowId: row.id,
      organizationId: row.organizationId,
      whiteboardId: boards.get(row.id) ?? null,
    }),
  );
  await tx.$executeRawUnsafe(`INSERT INTO ${EVENT_TABLE} (payload) SELECT unnest($1::text[])`, events.map(encodeEvent));
}

/** SQL expressions of one written row's event (kind and type as text parameters, e.g. `$6::text`). */
export interface EventSql {
  kind: string;
  type: string;
  rowId: string;
  organizationId: string;
  whiteboardId: string;
  /** A JSON array of row ids, for an event that names several rows (MOVED). */
  rowIds?: string;
}

/**
 * The insert of the events of the rows a single statement wrote (the CTE `rows`), each built from
 * its columns: the same events as publishChanges writes, read when that statement's transaction commits.
 */
export function eventsInsertSql(event: EventSql, rows: string): string {
  const fields = Object.entries(event).map(([key, value]) => `'${key}', ${value}`);
  return `INSERT INTO ${EVENT_TABLE} (payload) SELECT json_build_object(${fields.join(', ')})::text FROM ${rows}`;
}
