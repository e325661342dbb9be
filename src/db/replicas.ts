import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { ScopedPool } from './row-security.js';
import { logger } from '../observability/logger.js';
import { describeUrl, queryRows } from './engine.js';

/** How often each instance reads the primary's WAL position and every replica's replay position. */
const POLL_MS = 100;
/** A replica that takes longer to connect or to answer a poll counts as not answering. */
const ANSWER_MS = 1_000;

// Flushed WAL: what a replica can have received.
const primaryPositionSql = `SELECT (pg_current_wal_flush_lsn() - '0/0')::int8`;
const replayPositionSql = `SELECT (pg_last_wal_replay_lsn() - '0/0')::int8`;

/** The primary's flushed WAL position at a moment (performance.now()). */
interface Sample {
  at: number;
  lsn: bigint;
}

/** One streaming replica: its pool, and what the last polls told of it. */
export class Replica {
  readonly location: string;
  readonly pool: pg.Pool;
  /** Prisma's driver adapter on the replica's pool. */
  readonly adapter: PrismaPg;
  /** The WAL position it had replayed at the last poll that it answered. */
  replayed = 0n;
  /** The last moment it held everything the primary had written (its lag is the time since). */
  caughtUpAt = Number.NEGATIVE_INFINITY;
  /** Why it cannot serve reads now (undefined: it can, unless it lags). */
  trouble: string | undefined = 'not polled yet';
  /** Whether it served reads at the last poll, so that a change is logged once. */
  inUse = false;

  constructor(url: string, poolSize: number) {
    this.location = describeUrl(url);
    this.pool = new ScopedPool({ connectionString: url, max: poolSize, connectionTimeoutMillis: ANSWER_MS });
    // An idle connection the replica closed (a restart): the next poll tells whether it is back.
    this.pool.on('error', (error) => (this.trouble = error.message));
    this.adapter = new PrismaPg(this.pool);
  }

  lagMs(now = performance.now()): number {
    return now - this.caughtUpAt;
  }
}

/** A replica's condition, for metrics. */
export interface ReplicaStatus {
  location: string;
  lagMs: number;
  usable: boolean;
}

function withinAnswerTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms`)), ANSWER_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The replicas of DATABASE_REPLICA_URLS. Every POLL_MS it samples the primary's WAL position, then
 * each replica's replay position: a replica that has replayed a sample's position held, at that
 * sample's moment, everything the primary had written, and its lag is the time since the newest
 * such sample. The lag is so an upper bound (by up to a poll), it needs no clock shared with the
 * servers, and a primary without writes gives no lag at all. A replica that lags more than the
 * limit, does not answer, or is no standby is left out until a poll finds it well again.
 */
export class ReplicaSet {
  readonly replicas: Replica[];
  private samples: Sample[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    urls: string[],
    poolSize: number,
    readonly maxLagMs: number,
    /** Runs a statement on the primary. */
    private readonly primary: (sql: string, args: unknown[]) => Promise<unknown[][]>,
    private readonly names: (sql: string) => string | undefined,
  ) {
    this.replicas = urls.map((url) => new Replica(url, poolSize));
  }

  /** Starts polling; the replicas serve reads from the first poll that finds them caught up. */
  start(): void {
    const loop = async () => {
      await this.poll();
      if (!this.closed) this.timer = setTimeout(loop, POLL_MS).unref();
    };
    void loop();
  }

  /** A statement of the gateway's own on a replica, prepared as on the primary. */
  queryRows(replica: Replica, sql: string, args: unknown[]): Promise<unknown[][]> {
    return queryRows(replica.pool, this.names, sql, args);
  }

  /** Whether any replica could serve a read now (else the read goes to the primary without asking more). */
  anyUsable(): boolean {
    const now = performance.now();
    return this.replicas.some((replica) => this.usable(replica, now));
  }

  /** The next replica in turn that is usable and has replayed `fence`; undefined: the primary. */
  pick(fence: bigint): Replica | undefined {
    const now = performance.now();
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.next + i) % count];
      if (this.usable(replica, now) && replica.replayed >= fence) {
        this.next = (this.next + i + 1) % count;
        return replica;
      }
    }
    return undefined;
  }

  /** A read on `replica` failed as a server that is away fails: it is left out until a poll finds it answering. */
  failed(replica: Replica, error: unknown): void {
    replica.trouble = error instanceof Error ? error.message.split('\n')[0] : String(error);
    this.report(replica, performance.now());
  }

  status(): ReplicaStatus[] {
    const now = performance.now();
    return this.replicas.map((replica) => ({
      location: replica.location,
      lagMs: replica.lagMs(now),
      usable: this.usable(replica, now),
    }));
  }

  describe(): string {
    return `${this.replicas.map((replica) => replica.location).join(', ')} (at most ${this.maxLagMs} ms behind)`;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.replicas.map((replica) => replica.pool.end()));
  }

  private usable(replica: Replica, now: number): boolean {
    return replica.trouble === undefined && replica.lagMs(now) <= this.maxLagMs;
  }

  private async poll(): Promise<void> {
    const at = performance.now();
    try {
      const [[lsn]] = await withinAnswerTime(this.primary(primaryPositionSql, []));
      this.samples.push({ at, lsn: BigInt(lsn as string) });
    } catch {
      // The primary is away: without new samples every replica's lag grows, and reads (which need the primary) fail as before.
    }
    // Kept long enough to tell any lag up to the limit, and never fewer than one.
    while (this.samples.length > 1 && this.samples[0].at < at - 2 * this.maxLagMs) this.samples.shift();
    await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
  }

  private async pollReplica(replica: Replica): Promise<void> {
    try {
      const [[lsn]] = await withinAnswerTime(this.queryRows(replica, replayPositionSql, []));
      if (lsn === null) throw new Error('it is not a standby (pg_last_wal_replay_lsn() is null)');
      replica.replayed = BigInt(lsn as string);
      replica.trouble = undefined;
      for (const sample of this.samples)
        if (sample.lsn <= replica.replayed) replica.caughtUpAt = Math.max(replica.caughtUpAt, sample.at);
    } catch (error) {
      replica.trouble = (error as Error).message.split('\n')[0];
    }
    this.report(replica, performance.now());
  }

  /** Logs when a replica stops or starts serving reads. */
  private report(replica: Replica, now: number): void {
    const usable = this.usable(replica, now);
    if (usable === replica.inUse || this.closed) return;
    replica.inUse = usable;
    if (usable) logger.info({ replica: replica.location }, 'replica in use: it answers and is caught up');
    else if (replica.trouble)
      logger.warn({ replica: replica.location, reason: replica.trouble }, 'replica left out: it does not answer');
    else
      logger.warn(
        { replica: replica.location, lagMs: Math.round(replica.lagMs(now)), maxLagMs: this.maxLagMs },
        'replica left out: it lags behind the primary',
      );
  }
}
