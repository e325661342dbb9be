/** How a bucket is refilled and how much it holds, in points. */
export interface BucketPolicy {
  /** Points a bucket gains per second. */
  rate: number;
  /** Points a full bucket holds. */
  burst: number;
}

/** Where the buckets every instance shares are kept: the database (database-store.ts) or Redis (redis-store.ts). */
export interface BucketStore {
  /**
   * Refills each bucket for the time since it was last reported, takes its `spent` points (a bucket
   * may go below zero: the instances admitted more than it held between reports, a debt the key
   * then waits out) and answers the points each holds now, in the order of `keys`; all in one round
   * trip. A bucket never reported is full.
   */
  report(keys: string[], spent: number[]): Promise<number[]>;
  close(): Promise<void>;
}
