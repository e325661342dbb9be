import { LOG_TABLE } from './log.js';
import type { QueryRows } from './log-read.js';

/** Entries deleted at most per statement, and statements at most per run: retention never holds many rows locked at once. */
export const PRUNE_BATCH = 1000;
const BATCHES_PER_RUN = 50;

// The oldest entries by id, those among them older than the cutoff deleted, and the newest
// transaction deleted noted, in one statement: a cursor at or below it is told it expired.
const pruneSql = `WITH oldest AS (SELECT id, created_at FROM ${LOG_TABLE} ORDER BY id LIMIT ${PRUNE_BATCH}),
gone AS (DELETE FROM ${LOG_TABLE} e USING oldest o WHERE e.id = o.id AND o.created_at < $1::timestamp(3) RETURNING e.xid),
noted AS (
  UPDATE change_log_state SET pruned_xid = greatest(pruned_xid, (SELECT max(xid) FROM gone))
  WHERE EXISTS (SELECT FROM gone WHERE xid IS NOT NULL)
)
SELECT count(*)::int FROM gone`;

/**
 * Deletes the change log's entries older than `days` (0: none), oldest first, in batches: at most
 * PRUNE_BATCH x 50 a run, so a backlog drains over several runs without stalling writes. An entry
 * goes once it and every entry logged before it are past retention: each batch reads only the
 * oldest entries, never the whole log. Answers how many went.
 */
export async function pruneLog(run: QueryRows, days: number): Promise<number> {
  if (days === 0) return 0;
  const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
  let deleted = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const [[count]] = (await run(pruneSql, [cutoff])) as [[number]];
    deleted += count;
    if (count < PRUNE_BATCH) break;
  }
  return deleted;
}

// Past their time, oldest first, a bounded batch a statement (the index on expires_at finds them).
const pruneKeysSql = `WITH expired AS (
  SELECT caller, key FROM idempotency_key WHERE expires_at <= timezone('UTC', now()) ORDER BY expires_at LIMIT ${PRUNE_BATCH}
), gone AS (DELETE FROM idempotency_key k USING expired e WHERE k.caller = e.caller AND k.key = e.key RETURNING 1)
SELECT count(*)::int FROM gone`;

/** Deletes the idempotency keys past IDEMPOTENCY_TTL_HOURS, in batches as pruneLog does; answers how many went. */
export async function pruneKeys(run: QueryRows): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const [[count]] = (await run(pruneKeysSql, [])) as [[number]];
    deleted += count;
    if (count < PRUNE_BATCH) break;
  }
  return deleted;
}
