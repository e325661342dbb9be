import type { Client } from '../db/delegate.js';
import type { ActionMethod, CredentialKind } from '../generated/prisma/enums.js';
import { boardsOf, isOnBoard } from './board-of.js';
import type { EventKind } from './events.js';

/**
 * The change log (prisma/schema.prisma, UserActionLog): one entry per committed change, written in
 * the change's own transaction, so it never tells of a change that did not happen nor misses one
 * that did. It is the action log of the legacy routes, the source of every live event and the feed
 * of the webhooks; readers take its entries by position (src/live/positions.ts).
 */
export const LOG_TABLE = 'user_action_log';

const kindOfMethod: Record<ActionMethod, EventKind> = { CREATE: 'CREATED', UPDATE: 'UPDATED', DELETE: 'DELETED' };

/** Who made a change, and how they were signed in. */
export interface Actor {
  userId: number;
  credential: CredentialKind | null;
}

/**
 * Writes the log's entries of the rows a change wrote, one per row, from inside its transaction:
 * each carries what its subscribers are told (the event's kind, the row's board).
 */
export async function logChanges(
  tx: Client,
  actor: Actor,
  change: { method: ActionMethod; entityType: string; event?: EventKind },
  rows: { id: number; organizationId: number | null }[],
): Promise<void> {
  const { entityType } = change;
  const boards = isOnBoard(entityType) ? await boardsOf(tx, entityType, rows) : new Map<number, number>();
  await tx.userActionLog.createMany({
    data: rows.map((row) => ({
      userId: actor.userId,
      credential: actor.credential,
      organizationId: row.organizationId,
      method: change.method,
      entityType,
      entityId: row.id,
      kind: change.event ?? kindOfMethod[change.method],
      whiteboardId: boards.get(row.id) ?? null,
    })),
  });
}

/** SQL expressions of the entries a single statement writes, one per row of a CTE (e.g. `$6::text`, a column). */
export interface EntrySql {
  /** The user ($n::int), the time ($n::timestamp(3)) and the credential kind ($n::credential_kind). */
  userId: string;
  createdAt: string;
  credential: string;
  entityType: string;
  kind: string;
  /** Columns of the CTE's rows. */
  entityId: string;
  organizationId: string;
  whiteboardId: string;
  /** MOVED: an int[] of every instance moved, on the one entry that tells of the move. */
  rowIds?: string;
}

const entryColumns: Record<keyof EntrySql, string> = {
  userId: 'user_id',
  createdAt: 'created_at',
  credential: 'credential',
  entityType: 'entity_type',
  kind: 'kind',
  entityId: 'entity_id',
  organizationId: 'organization_id',
  whiteboardId: 'whiteboard_id',
  rowIds: 'row_ids',
};

/**
 * The insert of the entries (method UPDATE) of the rows a single statement wrote, the CTE `rows`:
 * the same entries as logChanges writes, from SQL.
 */
export function entriesInsertSql(entry: EntrySql, rows: string): string {
  const fields = Object.entries(entry) as [keyof EntrySql, string][];
  return `INSERT INTO ${LOG_TABLE} (method, ${fields.map(([field]) => entryColumns[field]).join(', ')})
  SELECT 'UPDATE', ${fields.map(([, value]) => value).join(', ')} FROM ${rows}`;
}
