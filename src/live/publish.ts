import type { Client } from '../db/delegate.js';
import { boardsOf, isOnBoard } from './board-of.js';
import { encodeEvent, LIVE_CHANNEL, type EventKind, type LiveEvent } from './events.js';

const kindOfMethod = { CREATE: 'CREATED', UPDATE: 'UPDATED', DELETE: 'DELETED' } as const;

/**
 * Announces the rows a change wrote, from inside its transaction: PostgreSQL delivers a NOTIFY only
 * when the transaction commits, to every instance listening, and drops it on rollback.
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
  await tx.$executeRaw`SELECT pg_notify(${LIVE_CHANNEL}, payload) FROM unnest(${events.map(encodeEvent)}::text[]) AS payload`;
}

/** SQL expressions of one written row's event (kind and type as text parameters, e.g. `$6::text`). */
export interface EventSql {
  kind: string;
  type: string;
  rowId: string;
  organizationId: string;
  whiteboardId: string;
}

/**
 * The NOTIFY of one row written by a single statement, as an SQL expression over its columns: the
 * same event as publishChanges sends, delivered when that statement's own transaction commits.
 */
export function notifySql(event: EventSql): string {
  const fields = Object.entries(event).map(([key, value]) => `'${key}', ${value}`);
  return `pg_notify('${LIVE_CHANNEL}', json_build_object(${fields.join(', ')})::text)`;
}
