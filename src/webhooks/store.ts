import type { DatabaseEngine } from '../db/engine.js';
import { RETRY_WINDOW_MS } from './schedule.js';

// The delivery rows' statements, each one statement on the primary, none inside a request. Times are
// the database's (now()), never an instance's clock: instances' clocks differ, the database's is one.

type Run = DatabaseEngine['queryRows'];

/** How long a claimed delivery stays an instance's: an attempt's 10 s bound, with room for recording its outcome. */
export const LEASE_MS = 30_000;

/** The rows' values column by column, one array a key: the parameters a statement unnests back into rows. */
const columns = <T, K extends keyof T>(rows: readonly T[], keys: readonly K[]) =>
  keys.map((key) => rows.map((row) => row[key]));

/** Prisma's `@updatedAt` columns are UTC timestamps without a zone. */
const utcNow = `(now() AT TIME ZONE 'UTC')`;

const ready = `d.state = 'PENDING' AND d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until <= now())`;

/** Whether any delivery is due: one cheap statement, so an idle tick costs no transaction. */
const anyDueSql = `SELECT EXISTS (SELECT FROM webhook_delivery d WHERE ${ready})`;

// Endpoints with a delivery due, locked until the claim commits: an instance claiming at the same
// moment skips them. The claim is a statement of its own after the lock, so its snapshot holds every
// lease committed before: the count in flight (leased) holds across instances.
const lockSql = `SELECT e.id FROM webhook_endpoint e
WHERE e.enabled AND e.id IN (SELECT d.endpoint_id FROM webhook_delivery d WHERE ${ready})
ORDER BY e.id LIMIT $1::int
FOR NO KEY UPDATE OF e SKIP LOCKED`;

// Of each locked endpoint, only the first pending delivery of each lane (a board) may go, so a board's
// changes arrive in order; as many as its room under $2 (WEBHOOK_CONCURRENCY), at most $4 in all.
const claimSql = `WITH due AS (
  SELECT e.id, e.organization_id, e.url, e.secret,
    CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS previous_secret,
    $2::int - (SELECT count(*)::int FROM webhook_delivery f
      WHERE f.endpoint_id = e.id AND f.state = 'PENDING' AND f.leased_until > now()) AS room
  FROM webhook_endpoint e WHERE e.id = ANY($1::int[])
), picked AS (
  SELECT head.id FROM due CROSS JOIN LATERAL (
    SELECT d.id FROM (
      SELECT DISTINCT ON (lane) id, state, next_attempt_at, leased_until FROM webhook_delivery
      WHERE endpoint_id = due.id AND state = 'PENDING' ORDER BY lane, id
    ) d
    WHERE ${ready}
    ORDER BY d.id LIMIT greatest(due.room, 0)
  ) head
  ORDER BY head.id LIMIT $4::int
)
UPDATE webhook_delivery d
SET leased_until = now() + $3::int * interval '1 millisecond', attempts = d.attempts + 1, last_attempt_at = now()
FROM picked, due
WHERE d.id = picked.id AND due.id = d.endpoint_id AND ${ready}
RETURNING d.id::text AS delivery_id, d.attempts, d.message_id, d.body, due.id AS endpoint_id, due.organization_id, due.url,
  due.secret, due.previous_secret`;

/** A delivery an instance holds for one attempt. */
export interface Claimed {
  id: string;
  /** This attempt's number: its outcome is written only while the delivery is still at it. */
  attempt: number;
  messageId: string;
  body: string;
  endpointId: number;
  organizationId: number;
  url: string;
  /** Sealed: the current secret, and the one before a rotation while its grace period runs. */
  secrets: string[];
}

/** Runs statements in one transaction. */
export type Transact = <T>(work: (run: Run) => Promise<T>) => Promise<T>;

/** Claims up to `limit` deliveries due now, leasing them for LEASE_MS; at most `concurrency` of one endpoint in flight. */
export async function claimDeliveries(
  run: Run,
  transact: Transact,
  concurrency: number,
  limit: number,
): Promise<Claimed[]> {
  const [[anyDue]] = await run(anyDueSql, []);
  if (!anyDue) return [];
  const rows = await transact(async (inTransaction) => {
    const locked = (await inTransaction(lockSql, [limit])).map(([id]) => id as number);
    return locked.length ? inTransaction(claimSql, [locked, concurrency, LEASE_MS, limit]) : [];
  });
  return rows.map(([id, attempt, messageId, body, endpointId, organizationId, url, secret, previous]) => ({
    id: id as string,
    attempt: attempt as number,
    messageId: messageId as string,
    body: body as string,
    endpointId: endpointId as number,
    organizationId: organizationId as number,
    url: url as string,
    secrets: previous ? [secret as string, previous as string] : [secret as string],
  }));
}

/** How one attempt went, as the delivery row keeps it. */
export interface Outcome {
  id: string;
  attempt: number;
  status: number | null;
  excerpt: string;
  /** The wait before the next attempt; null: delivered. */
  retryInMs: number | null;
  /** The receiver answered 410 Gone: its endpoint is disabled, the delivery waits for it. */
  gone: boolean;
}

// A failure past the retry window makes a dead letter, but not the one a 410 answered: that waits
// for its endpoint to be enabled again. An outcome of an attempt whose lease another instance has
// taken since (its attempt number moved on) changes nothing.
const outcomesSql = `WITH outcome AS (
  SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::bigint[], $6::boolean[])
    AS o(id, attempt, status, excerpt, retry_ms, gone)
), written AS (
  UPDATE webhook_delivery d SET
    state = (CASE
      WHEN o.retry_ms IS NULL THEN 'DELIVERED'
      WHEN NOT o.gone AND now() + o.retry_ms * interval '1 millisecond' > d.retry_since + $7::bigint * interval '1 millisecond' THEN 'DEAD'
      ELSE 'PENDING' END)::webhook_delivery_state,
    delivered_at = CASE WHEN o.retry_ms IS NULL THEN now() END,
    next_attempt_at = CASE WHEN o.retry_ms IS NULL THEN d.next_attempt_at ELSE now() + o.retry_ms * interval '1 millisecond' END,
    leased_until = NULL,
    last_status = o.status,
    last_error = o.excerpt
  FROM outcome o
  WHERE d.id = o.id AND d.attempts = o.attempt AND d.state = 'PENDING'
  RETURNING d.endpoint_id, o.gone
)
UPDATE webhook_endpoint e SET enabled = false, disabled_reason = 'GONE', updated_at = ${utcNow}
WHERE e.enabled AND e.id IN (SELECT endpoint_id FROM written WHERE gone)`;

/** Writes the outcomes of several attempts in one statement. */
export async function recordOutcomes(run: Run, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await run(outcomesSql, [
    ...columns(outcomes, ['id', 'attempt', 'status', 'excerpt', 'retryInMs', 'gone']),
    RETRY_WINDOW_MS,
  ]);
}

/** What the fan-out reads of the endpoints that follow the change log. */
export interface FollowingEndpoint {
  id: number;
  organizationId: number;
  cursor: string;
  eventTypes: string[];
  whiteboardIds: number[];
  /** How many more deliveries it may have pending (the window the log is read into). */
  room: number;
}

const followingSql = `SELECT e.id, e.organization_id, e.cursor, e.event_types, e.whiteboard_ids,
  $1::int - (SELECT count(*)::int FROM webhook_delivery d WHERE d.endpoint_id = e.id AND d.state = 'PENDING') AS room
FROM webhook_endpoint e WHERE e.enabled AND e.cursor IS NOT NULL ORDER BY e.id`;

/** The enabled endpoints with a cursor in the log, and how much of it each may take now (`window` pending at most). */
export async function followingEndpoints(run: Run, window: number): Promise<FollowingEndpoint[]> {
  const rows = await run(followingSql, [window]);
  return rows.map(([id, organizationId, cursor, eventTypes, whiteboardIds, room]) => ({
    id: id as number,
    organizationId: organizationId as number,
    cursor: cursor as string,
    eventTypes: (eventTypes as string[] | null) ?? [],
    whiteboardIds: (whiteboardIds as number[] | null) ?? [],
    room: room as number,
  }));
}

/** A delivery the fan-out makes. */
export interface NewDelivery {
  endpointId: number;
  messageId: string;
  eventType: string;
  /** The board, 0 for none. */
  lane: number;
  body: string;
}

// Each endpoint's cursor moves only from where it was read (compare and set), and its deliveries are
// written in the same statement, in the log's order: an endpoint another instance moved meanwhile, or
// holds locked, gets nothing here, so no change is written twice nor skipped.
const fanOutSql = `WITH moving AS (
  SELECT e.id, c.next FROM webhook_endpoint e
  JOIN unnest($1::int[], $2::text[], $3::text[]) AS c(id, previous, next) ON c.id = e.id
  WHERE e.enabled AND e.cursor = c.previous
  ORDER BY e.id
  FOR NO KEY UPDATE OF e SKIP LOCKED
), moved AS (
  UPDATE webhook_endpoint e SET cursor = moving.next FROM moving WHERE e.id = moving.id RETURNING e.id
)
INSERT INTO webhook_delivery (endpoint_id, message_id, event_type, lane, body)
SELECT d.endpoint_id, d.message_id, d.event_type, d.lane, d.body
FROM unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::text[]) WITH ORDINALITY AS d(endpoint_id, message_id, event_type, lane, body, n)
WHERE d.endpoint_id IN (SELECT id FROM moved)
ORDER BY d.n`;

/** Moves each endpoint's cursor from `previous` to `next` and writes its new deliveries, in one statement. */
export async function fanOut(
  run: Run,
  moves: readonly { endpointId: number; previous: string; next: string }[],
  deliveries: readonly NewDelivery[],
): Promise<void> {
  if (moves.length === 0) return;
  await run(fanOutSql, [
    ...columns(moves, ['endpointId', 'previous', 'next']),
    ...columns(deliveries, ['endpointId', 'messageId', 'eventType', 'lane', 'body']),
  ]);
}

// The oldest first, in bounded batches, so a prune never holds many row locks nor runs long.
const pruneSql = `WITH old AS (
  SELECT id FROM webhook_delivery WHERE created_at < now() - $1::int * interval '1 day' ORDER BY id LIMIT $2::int
)
DELETE FROM webhook_delivery WHERE id IN (SELECT id FROM old) RETURNING 1`;

/** Deletes up to `limit` deliveries older than `retentionDays`; answers how many. */
export async function pruneDeliveries(run: Run, retentionDays: number, limit: number): Promise<number> {
  return (await run(pruneSql, [retentionDays, limit])).length;
}
