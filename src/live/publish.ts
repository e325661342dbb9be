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
