import { logger, scrub } from '../../observability/logger.js';
import type { BucketPolicy, BucketStore } from './store.js';

/** What a bucket answered to one request, in points and whole seconds (the RateLimit-* headers). */
export interface Decision {
  admitted: boolean;
  /** Points a full bucket holds. */
  limit: number;
  /** Points left, once this request's are taken when it is admitted. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  reset: number;
  /** Seconds until the bucket holds what the refused request needs; 0 when admitted. */
  retryAfter: number;
}

interface Bucket {
  /** Points the shared bucket held at `at` (this process's clock, ms), as the store last answered. */
  tokens: number;
  at: number;
  /** When the store was last asked (answering or not). */
  checkedAt: number;
  /** Points this instance spent and has not reported yet, and those of the report under way. */
  unsent: number;
  sending: number;
  lastUsed: number;
  /** While the store has not answered for a bucket this instance has not seen yet: its requests wait. */
  loading: Promise<void> | undefined;
}

/**
 * How often an instance reports the points it spent and learns what the others spent: the most one
 * instance can admit beyond the shared bucket is what it admits in this time (then repaid as debt).
 */
export const REPORT_MS = 100;
/**
 * A bucket used in this time is reported at every tick, spent from or not, so this instance learns
 * what the others take from it; an older view is brought up to date before a request is decided on it.
 */
const FRESH_MS = 1_000;
/** A bucket unused this long is forgotten here. */
const IDLE_MS = 60_000;

/**
 * Token buckets decided in process and shared through a store in batches. A request is decided on
 * this instance's view of its bucket, with no round trip: the points the store held at the last
 * report, refilled since, less what this instance spent since. Every REPORT_MS, one round trip
 * reports every bucket used in the last FRESH_MS and brings back what every instance left in it.
 * Only a request whose bucket this instance has not seen for FRESH_MS waits, for the next report.
 * When the store cannot be reached, each instance goes on with its own view (it admits rather than
 * refuses) and reports when the store is back.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private storeDown = false;
  private lastSweep = Date.now();

  constructor(
    readonly policy: BucketPolicy,
    private readonly store: BucketStore,
  ) {
    this.timer = setInterval(() => this.tick(), REPORT_MS);
    // The buckets must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  /** Takes `cost` points from `key`'s bucket when it holds them (or, for a cost above the burst, when it is full). */
  take(key: string, cost: number): Decision | Promise<Decision> {
    const now = Date.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = {
        tokens: this.policy.burst,
        at: now,
        checkedAt: 0,
        unsent: 0,
        sending: 0,
        lastUsed: now,
        loading: undefined,
      };
      this.buckets.set(key, bucket);
    }
    if (!bucket.loading && now - bucket.checkedAt > FRESH_MS) bucket.loading = this.reportSoon();
    const seen = bucket;
    return seen.loading ? seen.loading.then(() => this.decide(seen, cost)) : this.decide(seen, cost);
  }

  /** Stops reporting, after one last report of what was spent. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.reportSoon();
    await this.store.close();
  }

  private decide(bucket: Bucket, cost: number): Decision {
    const { rate, burst } = this.policy;
    const now = Date.now();
    bucket.lastUsed = now;
    const available =
      Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate) - bucket.unsent - bucket.sending;
    // An operation dearer than the whole bucket runs on a full one and leaves a debt, rather than never.
    const needed = Math.min(cost, burst);
    const admitted = available >= needed;
    if (admitted) bucket.unsent += cost;
    const left = admitted ? available - cost : available;
    return {
      admitted,
      limit: burst,
      remaining: Math.max(0, Math.floor(left)),
      reset: Math.ceil((burst - left) / rate),
      retryAfter: admitted ? 0 : Math.ceil((needed - available) / rate),
    };
  }

  /** Whether a report should carry this bucket: spent from, waited for, or in use. */
  private due(bucket: Bucket, now: number): boolean {
    return bucket.unsent > 0 || bucket.loading !== undefined || now - bucket.lastUsed < FRESH_MS;
  }

  private tick(): void {
    const now = Date.now();
    for (const bucket of this.buckets.values()) {
      if (this.due(bucket, now)) {
        void this.reportSoon();
        break;
      }
    }
    if (now - this.lastSweep < IDLE_MS) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.lastUsed > IDLE_MS && bucket.unsent === 0 && bucket.sending === 0 && !bucket.loading)
        this.buckets.delete(key);
    }
  }

  /** The next report, which starts once the one under way (if any) ends: one round trip at a time. */
  private reportSoon(): Promise<void> {
    this.queued ??= (this.running ?? Promise.resolve()).then(() => {
      this.queued = undefined;
      this.running = this.report().finally(() => (this.running = undefined));
      return this.running;
    });
    return this.queued;
  }

  private async report(): Promise<void> {
    const started = Date.now();
    const sent = [...this.buckets].filter(([, bucket]) => this.due(bucket, started));
    if (!sent.length) return;
    for (const [, bucket] of sent) [bucket.sending, bucket.unsent] = [bucket.unsent, 0];
    try {
      const tokens = await this.store.report(
        sent.map(([key]) => key),
        sent.map(([, bucket]) => bucket.sending),
      );
      const now = Date.now();
      for (const [i, [, bucket]] of sent.entries())
        Object.assign(bucket, { tokens: tokens[i], at: now, checkedAt: now, sending: 0, loading: undefined });
      if (this.storeDown) logger.warn('rate limit: the bucket store answers again');
      this.storeDown = false;
    } catch (error) {
      // Admitting on this instance's own counts beats refusing everyone while the store is away.
      // Asked again at the next tick if in use, else by the next request after FRESH_MS, not by every request.
      for (const [, bucket] of sent)
        Object.assign(bucket, {
          unsent: bucket.unsent + bucket.sending,
          sending: 0,
          checkedAt: started,
          loading: undefined,
        });
      if (!this.storeDown)
        logger.error(
          `rate limit: the bucket store cannot be reached (${scrub((error as Error).message)}); deciding on this instance's own counts`,
        );
      this.storeDown = true;
    }
  }
}
