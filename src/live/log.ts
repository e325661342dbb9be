import type { Client } from '../db/delegate.js';
import { parameter, sql, statementOf, type SQL } from '../read-plans/sql.js';
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

/** What an entry holds, as SQL: values of the change, or columns of the rows a statement wrote. */
export interface EntryFields {
  method: SQL;
  userId: SQL;
  credential: SQL;
  /** The column's default (the statement's time) when not given. */
  createdAt?: SQL;
  entityType: SQL;
  kind: SQL;
  entityId: SQL;
  organizationId: SQL;
  whiteboardId: SQL;
  /** MOVED: an int[] of every instance moved, on the one entry that tells of the move. */
  rowIds?: SQL;
  /** The keyed request and its step (stepColumns); absent: NULL, for a request without an Idempotency-Key. */
  requestId?: SQL;
  requestStep?: SQL;
}

/** A change of a keyed request: which request (its idempotency_key row), which of its changes, and the attempt making it. */
export interface RequestStep {
  requestId: string;
  step: number;
  attempt: number;
}

/** The entry fields that name a keyed request's step. */
export const stepColumns = (step: RequestStep): Pick<EntryFields, 'requestId' | 'requestStep'> => ({
  requestId: parameter(step.requestId, 'bigint'),
  requestStep: parameter(step.step, 'int'),
});

/**
 * Holds while `step`'s attempt still holds its key, and locks the key's row until the change commits:
 * an attempt that takes the key over waits for that, then sees the step committed (or not), so no step
 * is ever made by two attempts.
 */
export const stepFence = (step: RequestStep): SQL =>
  sql`EXISTS (SELECT FROM idempotency_key WHERE id = ${parameter(step.requestId, 'bigint')} AND attempt = ${parameter(step.attempt, 'int')} FOR UPDATE)`;

const entryColumns: Record<keyof EntryFields, string> = {
  method: 'method',
  userId: 'user_id',
  credential: 'credential',
  createdAt: 'created_at',
  entityType: 'entity_type',
  kind: 'kind',
  entityId: 'entity_id',
  organizationId: 'organization_id',
  whiteboardId: 'whiteboard_id',
  rowIds: 'row_ids',
  requestId: 'request_id',
  requestStep: 'request_step',
};

/** The insert of one entry per row of `from`: the only place an entry of the log is written. */
export function entriesInsert(entry: EntryFields, from: SQL): SQL {
  const fields = Object.entries(entry) as [keyof EntryFields, SQL][];
  const columns = fields.map(([field]) => sql.identifier(entryColumns[field]));
  return sql`INSERT INTO ${sql.identifier(LOG_TABLE)} (${sql.join(columns, ', ')})
  SELECT ${sql.join(
    fields.map(([, value]) => value),
    ', ',
  )} FROM ${from}`;
}

/**
 * Writes the log's entries of the rows a change wrote, one per row, from inside its transaction:
 * each carries what its subscribers are told (the event's kind, the row's board), and the keyed
 * request's `step` when there is one. Answers false when that step's attempt no longer holds its
 * key (another attempt took it over): the caller rolls the change back.
 */
export async function logChanges(
  tx: Client,
  actor: Actor,
  change: { method: ActionMethod; entityType: string; event?: EventKind },
  rows: { id: number; organizationId: number | null }[],
  step?: RequestStep,
): Promise<boolean> {
  const { entityType } = change;
  const boards = isOnBoard(entityType) ? await boardsOf(tx, entityType, rows) : new Map<number, number>();
  const written = sql`unnest(${parameter(
    rows.map((row) => row.id),
    'int[]',
  )}, ${parameter(
    rows.map((row) => row.organizationId),
    'int[]',
  )}, ${parameter(
    rows.map((row) => boards.get(row.id) ?? null),
    'int[]',
  )}) AS written(id, organization_id, whiteboard_id)${step ? sql` WHERE ${stepFence(step)}` : sql.blank}`;
  const { text, values } = statementOf(
    entriesInsert(
      {
        method: parameter(change.method, 'action_method'),
        userId: parameter(actor.userId, 'int'),
        credential: parameter(actor.credential, 'credential_kind'),
        entityType: parameter(entityType, 'text'),
        kind: parameter(change.event ?? kindOfMethod[change.method], 'text'),
        entityId: sql`written.id`,
        organizationId: sql`written.organization_id`,
        whiteboardId: sql`written.whiteboard_id`,
        ...(step && stepColumns(step)),
      },
      written,
    ),
  );
  const logged = await tx.$executeRawUnsafe(text, ...values);
  return !step || rows.length === 0 || logged === rows.length;
}
