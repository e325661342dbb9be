import type { DatabaseEngine } from '../db/engine.js';
import type { CredentialKind } from '../generated/prisma/enums.js';
import type { EventKind, LiveEvent } from './events.js';
import { LOG_TABLE } from './log.js';
import { before, encodeCursor, isAfter, type Cursor, type Position } from './positions.js';

export type QueryRows = DatabaseEngine['queryRows'];

// Every transaction of this database whose id is below the horizon has ended, so its entries are
// all visible and none can appear later below it: reading each time from the last horizon to the new
// one reads every committed entry once, whatever the order the transactions committed in. The
// horizon is the oldest transaction still running in the statement's snapshot, leaving out those
// that a backend of another database runs (they cannot write this database's log, and a transaction
// held open there must not hold back every board here); a running id that no backend shows any more
// counts. `xmax` is the next transaction id: no cursor of this database is past it.
export const horizon = `(SELECT least(pg_snapshot_xmax(snapshot)::text::bigint, (
    SELECT min(running::text::bigint) FROM pg_snapshot_xip(snapshot) running
    WHERE NOT EXISTS (
      SELECT FROM pg_stat_get_activity(NULL) backend
      WHERE backend.backend_xid::text::bigint = running::text::bigint % 4294967296
        AND backend.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
    )
  )) AS xmin, pg_snapshot_xmax(snapshot)::text AS xmax FROM pg_current_snapshot() snapshot)`;

/** The columns of an entry that a reader turns into a change (changeOf), from the log aliased `e`. */
export const entryColumns = `e.id, e.xid::text, e.kind, e.entity_type, e.entity_id, e.organization_id, e.whiteboard_id,
  e.row_ids, e.user_id, e.credential::text, (extract(epoch FROM e.created_at) * 1000)::float8`;

/** What the log says of itself at a read: its horizon, the next transaction id, its database's identity, how far retention deleted. */
export interface LogHead {
  horizon: string;
  xmax: string;
  identity: string;
  prunedXid: string;
}
const headColumns = 'h.xmin::text, h.xmax, s.identity::text, s.pruned_xid::text';
const state = '(SELECT identity, pruned_xid FROM change_log_state)';
const headOf = (row: unknown[]): LogHead => {
  const [horizon, xmax, identity, prunedXid] = row as string[];
  return { horizon, xmax, identity, prunedXid };
};

export const headSql = `SELECT ${headColumns} FROM ${horizon} h, ${state} s`;

export async function readHead(run: QueryRows): Promise<LogHead> {
  const [row] = await run(headSql, []);
  return headOf(row);
}

/** One entry of the log as its readers see it: the live event, with who made it and when. */
export interface LoggedChange extends LiveEvent {
  committedAt: Date;
  actor: { userId: number; credential: CredentialKind | null };
}

/** A change from the entry columns at `offset` of a row (entryColumns); a move tells of its board. */
export function changeOf(identity: string, row: unknown[], offset = 0): LoggedChange {
  const [id, xid, kind, entityType, entityId, organizationId, whiteboardId, rowIds, userId, credential, at] = row.slice(
    offset,
  ) as [
    number,
    string,
    EventKind,
    string,
    number,
    number | null,
    number | null,
    number[] | null,
    number,
    CredentialKind | null,
    number,
  ];
  const moved = kind === 'MOVED';
  return {
    kind,
    type: moved ? 'Whiteboard' : entityType,
    rowId: moved ? whiteboardId! : entityId,
    organizationId,
    whiteboardId,
    ...(moved ? { rowIds: rowIds ?? [] } : {}),
    position: { xid, id },
    cursor: encodeCursor({ identity, xid, id }),
    committedAt: new Date(at),
    actor: { userId, credential },
  };
}

// A horizon that counts a transaction of another database, whose backend ended between the snapshot
// and the look at the backends, is lower than the last read's: the read keeps the higher, or it would
// read the entries between the two again.
const pastSql = `SELECT greatest(h.xmin, $1::bigint)::text, ${entryColumns}
FROM ${horizon} h
LEFT JOIN ${LOG_TABLE} e ON e.xid >= $1::bigint AND e.xid < h.xmin AND e.kind IS NOT NULL
ORDER BY e.xid, e.id`;

/** Every entry from `horizon` to this read's horizon, in log order, and where the next read starts (never before `horizon`). */
export async function readPast(
  run: QueryRows,
  identity: string,
  horizon: string,
): Promise<{ horizon: string; changes: LoggedChange[] }> {
  const rows = await run(pastSql, [horizon]);
  const changes = rows.filter((row) => row[1] !== null).map((row) => changeOf(identity, row, 1));
  return { horizon: rows[0][0] as string, changes };
}

/**
 * Where a reader goes on from after a read that reached the end: past every entry below the read's
 * horizon; a reader whose cursor is past that horizon already (it read where another saw further)
 * keeps its own, never moved back.
 */
export function readOn(head: LogHead, after?: { cursor: Cursor; text: string }): string {
  const reached = before(head.horizon);
  return after && isAfter(after.cursor, reached) ? after.text : encodeCursor({ identity: head.identity, ...reached });
}

/** Why the log cannot continue from `cursor` without a gap; undefined when it can. */
export function expiredBecause(cursor: Cursor, head: LogHead): string | undefined {
  if (cursor.identity !== head.identity || BigInt(cursor.xid) > BigInt(head.xmax))
    return 'The cursor is of another database: its changes cannot be read here';
  if (BigInt(cursor.xid) <= BigInt(head.prunedXid))
    return 'The cursor is older than the change log keeps (CHANGE_LOG_RETENTION_DAYS): some changes after it are gone';
  return undefined;
}

/** The entries a reader follows: one organization's, or one board's. */
export type LogScope = { organizationId: number } | { whiteboardId: number };

const scopedSql = (column: string) => `SELECT ${headColumns}, ${entryColumns}
FROM ${horizon} h CROSS JOIN ${state} s
LEFT JOIN LATERAL (
  SELECT * FROM ${LOG_TABLE} l
  WHERE l.${column} = $4 AND l.kind IS NOT NULL AND l.xid >= $1::bigint AND (l.xid, l.id) > ($1::bigint, $2::int)
    AND l.xid < least(h.xmin, coalesce($3::bigint, h.xmin))
  ORDER BY l.xid, l.id LIMIT $5
) e ON true
ORDER BY e.xid, e.id`;
const scopedStatements = { organizationId: scopedSql('organization_id'), whiteboardId: scopedSql('whiteboard_id') };

/**
 * The entries of `scope` after `after`, in log order, at most `limit`, below the horizon of this
 * read (and below `below`, a reader's own horizon, when given); with the head the read saw.
 */
export async function readScope(
  run: QueryRows,
  scope: LogScope,
  after: Position,
  limit: number,
  below?: string,
): Promise<{ head: LogHead; changes: LoggedChange[] }> {
  const [column, value] = Object.entries(scope)[0] as [keyof typeof scopedStatements, number];
  const rows = await run(scopedStatements[column], [after.xid, after.id, below ?? null, value, limit]);
  const head = headOf(rows[0]);
  const changes = rows.filter((row) => row[4] !== null).map((row) => changeOf(head.identity, row, 4));
  return { head, changes };
}

const organizationsSql = `SELECT g.n, ${headColumns}, ${entryColumns}
FROM ${horizon} h CROSS JOIN ${state} s
CROSS JOIN unnest($1::int[], $2::bigint[], $3::int[]) WITH ORDINALITY AS g(organization_id, xid, id, n)
LEFT JOIN LATERAL (
  SELECT * FROM ${LOG_TABLE} l
  WHERE l.organization_id = g.organization_id AND l.kind IS NOT NULL AND l.xid >= g.xid
    AND (l.xid, l.id) > (g.xid, g.id) AND l.xid < h.xmin
  ORDER BY l.xid, l.id LIMIT $4
) e ON true
ORDER BY g.n, e.xid, e.id`;

/**
 * readScope for several organizations at once, each after its own position, at most `limit` entries
 * each: one statement and one horizon for all (the webhook dispatcher reads every endpoint's at a tick).
 */
export async function readOrganizations(
  run: QueryRows,
  reads: readonly { organizationId: number; after: Position }[],
  limit: number,
): Promise<{ head: LogHead; changes: LoggedChange[][] }> {
  const rows = await run(organizationsSql, [
    reads.map((read) => read.organizationId),
    reads.map((read) => read.after.xid),
    reads.map((read) => read.after.id),
    limit,
  ]);
  const head = headOf(rows[0].slice(1));
  const changes = reads.map((): LoggedChange[] => []);
  for (const row of rows) if (row[5] !== null) changes[Number(row[0]) - 1].push(changeOf(head.identity, row, 5));
  return { head, changes };
}
