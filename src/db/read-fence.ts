// Read-your-writes across instances. After a mutation, the primary's WAL position past the
// mutation's commit record is recorded for its user in `read_fence`, on the primary, where every
// instance reads it: that user's reads go to a replica only once the replica has replayed that far.
// The position is the flushed one: a commit waits for its flush (unless synchronous_commit is off,
// where only the insert position lies past it), and a replica receives only flushed WAL, so the
// insert position could name records it cannot have yet. The table is UNLOGGED (no WAL, no flush
// per write; a crash empties it), so user 0 holds a floor that every read must pass: taken when the
// row is missing, after a crash or on a promoted replica, it lies past everything written before.

/** Runs a statement on the primary, as the request's statement. */
type Run = (sql: string, args: unknown[]) => Promise<unknown[][]>;

const FLOOR = 0;

const lookupSql = 'SELECT user_id, lsn FROM read_fence WHERE user_id IN (0, $1)';
const floorSql = `INSERT INTO read_fence (user_id, lsn) VALUES (0, pg_current_wal_flush_lsn() - '0/0')
ON CONFLICT (user_id) DO UPDATE SET lsn = read_fence.lsn RETURNING lsn`;
const recordSql = `INSERT INTO read_fence (user_id, lsn) VALUES ($1, CASE current_setting('synchronous_commit')
  WHEN 'off' THEN pg_current_wal_insert_lsn() ELSE pg_current_wal_flush_lsn() END - '0/0')
ON CONFLICT (user_id) DO UPDATE SET lsn = greatest(read_fence.lsn, excluded.lsn)`;

/** The WAL position a replica must have replayed before it serves `userId` (undefined: a caller without a key). */
export async function fenceOf(run: Run, userId: number | undefined): Promise<bigint> {
  const rows = await run(lookupSql, [userId ?? FLOOR]);
  let floor: bigint | undefined;
  let own = 0n;
  for (const [user, lsn] of rows) {
    if (user === FLOOR) floor = BigInt(lsn as string);
    else own = BigInt(lsn as string);
  }
  floor ??= BigInt((await run(floorSql, []))[0][0] as string);
  return floor > own ? floor : own;
}

/** Records that `userId` has written: called once the mutation has committed. */
export async function recordWrite(run: Run, userId: number): Promise<void> {
  await run(recordSql, [userId]);
}
