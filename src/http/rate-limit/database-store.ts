import { db } from '../../db/index.js';
import type { BucketPolicy, BucketStore } from './store.js';

// $3 is the burst, $4 the rate. A new row starts full; `excluded.tokens` is then `burst - spent`, which
// gives back the points spent for an existing row. Keys come sorted, so two instances reporting
// the same keys lock their rows in one order and cannot deadlock.
const reportSql = `INSERT INTO rate_limit_bucket AS bucket (key, tokens, updated_at)
SELECT key, $3::float8 - spent, now() FROM unnest($1::text[], $2::float8[]) AS report(key, spent)
ON CONFLICT (key) DO UPDATE SET
  tokens = least($3::float8, bucket.tokens + extract(epoch FROM now() - bucket.updated_at)::float8 * $4::float8) - ($3::float8 - excluded.tokens),
  updated_at = now()
RETURNING key, tokens`;

// A bucket that has refilled is the same as no row: dropping it keeps the table to the keys in use.
const forgetFullSql = `DELETE FROM rate_limit_bucket WHERE tokens + extract(epoch FROM now() - updated_at)::float8 * $2::float8 >= $1::float8`;

/** How often an instance drops the rows of full buckets. */
const FORGET_FULL_MS = 60_000;

/**
 * The buckets in the gateway's own database (table `rate_limit_bucket`), one statement per report,
 * on the engine's connections but not counted as a request's statements.
 */
export class DatabaseBucketStore implements BucketStore {
  private lastForget = Date.now();

  constructor(private readonly policy: BucketPolicy) {}

  async report(keys: string[], spent: number[]): Promise<number[]> {
    const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : 1));
    const { engine } = db();
    const rows = await engine.queryRows(reportSql, [
      order.map((i) => keys[i]),
      order.map((i) => spent[i]),
      this.policy.burst,
      this.policy.rate,
    ]);
    const tokens = new Map(rows.map(([key, left]) => [key as string, Number(left)]));
    if (Date.now() - this.lastForget > FORGET_FULL_MS) {
      this.lastForget = Date.now();
      await engine.queryRows(forgetFullSql, [this.policy.burst, this.policy.rate]);
    }
    return keys.map((key) => tokens.get(key)!);
  }

  async close(): Promise<void> {}
}
