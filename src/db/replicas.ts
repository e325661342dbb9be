import { PrismaPg } from '@prisma/adapter-pg';
import type { DatabaseBounds } from '../config.js';
import { logger } from '../observability/logger.js';
import { describeUrl } from './connection-string.js';
import { queryRows } from './engine.js';
import { ANSWER_MS, pollPool, withinAnswerTime } from './polls.js';
import { GatewayPool } from './pool.js';

/** How often each instance reads the primary's WAL position and every replica's replay position. */
const POLL_MS = 100;

// Flushed WAL: what a replica can have received.
const primaryPositionSql = `SELECT (pg_current_wal_flush_lsn() - '0/0')::int8`;
const replayPositionSql = `SELECT (pg_last_wal_replay_lsn() - '0/0')::int8, (pg_last_wal_receive_lsn() - '0/0')::int8`;

/** The primary's flushed WAL position at a moment (performance.now()). */
interface Sample {
  at: number;
  lsn: bigint;
}

/** One streaming replica: its pool, and what the last polls told of it. */
export class Replica {
  readonly location: string;
  readonly pool: GatewayPool;
  readonly poll: GatewayPool;
  /** Prisma's driver adapter on the replica's pool. */
  readonly adapter: PrismaPg;
  /** The WAL position it had replayed at the last poll that it answered. */
  replayed = 0n;
  /** The WAL position it had received from the primary (and flushed) at that poll. */
  received = 0n;
  /** The last moment it held everything the primary had written (its lag is the time since). */
  caughtUpAt = Number.NEGATIVE_INFINITY;
  /** Why it cannot serve reads now (undefined: it can, unless it lags). */
  trouble: string | undefined = 'not polled yet';
  /** Whether it served reads at the last poll, so that a change is logged once. */
  inUse = false;

  constructor(url: string, poolSize: number, bounds: DatabaseBounds) {
    this.location = describeUrl(url);
    // A replica that does not take a connection at once is left for the primary.
    const connectTimeoutMs = Math.min(ANSWER_MS, bounds.connectTimeoutMs);
    this.pool = new GatewayPool({
      url,
      max: poolSize,
      bounds: { ...bounds, connectTimeoutMs },
      sessionTimeouts: 'startup',
      primary: false,
    });
    // An idle connection the replica closed (a restart): the next poll tells whether it is back.
    this.pool.on('error', (error) => (this.trouble = error.message));
    this.adapter = new PrismaPg(this.pool);
    this.poll = pollPool(url);
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

/**
 * The replicas of DATABASE_REPLICA_URLS. Every POLL_MS it samples the primary's WAL position, then
 * each replica's replay position: a replica that has replayed a sample's position held, at that
 * sample's moment, everything the primary had written, and its lag is the time since the newest
 * such sample. The lag is so an upper bound (by up to a poll), it needs no clock shared with the
 * servers, and a primary without writes gives no lag at all. A replica that lags more than the
 * limit, does not answer, or is no standby is left out until a poll finds it well again.
 *
 * While the primary is away (a poll, or a request's read of its fence, found it not answering) no
 * lag can be told: a replica then serves every read once it has replayed all the WAL it received, and
 * as much as any replica received. With synchronous replication that holds every acknowledged write;
 * with asynchronous replication, what the primary had not sent yet is missing (docs/high-availability.md:
 * Reads through a primary outage). Its first good poll ends that.
 */
export class ReplicaSet {
  readonly replicas: Replica[];
  /** Whether the primary is away: it did not answer the last poll, or a request's read of its fence. */
  primaryAway = false;
  private samples: Sample[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    urls: string[],
    poolSize: number,
    readonly maxLagMs: number,
    bounds: DatabaseBounds,
    /** Runs a poll's statement on the primary, on a connection of its own. */
    private readonly primary: (sql: string, args: unknown[]) => Promise<unknown[][]>,
    private readonly names: (sql: string) => string | undefined,
  ) {
    this.replicas = urls.map((url) => new Replica(url, poolSize, bounds));
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

  /** The primary did not answer a request: reads go to the replicas as the outage rule allows until a poll finds it back. */
  primaryFailed(error: unknown): void {
    if (this.primaryAway || this.closed) return;
    this.primaryAway = true;
    logger.warn(
      { reason: error instanceof Error ? error.message.split('\n')[0] : String(error) },
      'the primary does not answer: replicas that have replayed all they received serve the reads',
    );
  }

  /** The next replica in turn that is usable and has replayed `fence` (none while the primary is away); undefined: the primary. */
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
    await Promise.all(this.replicas.flatMap((replica) => [replica.pool.end(), replica.poll.end()]));
  }

  /** Whether a replica would serve reads were the primary away (ReplicaSet's outage rule). */
  couldServeWithoutPrimary(): boolean {
    return this.replicas.some((replica) => this.servesWithoutPrimary(replica));
  }

  private usable(replica: Replica, now: number): boolean {
    if (this.primaryAway) return this.servesWithoutPrimary(replica);
    return replica.trouble === undefined && replica.lagMs(now) <= this.maxLagMs;
  }

  private servesWithoutPrimary(replica: Replica): boolean {
    return (
      replica.trouble === undefined && replica.replayed >= replica.received && replica.replayed >= this.mostReceived()
    );
  }

  /** The furthest WAL position any answering replica has received. */
  private mostReceived(): bigint {
    let most = 0n;
    for (const replica of this.replicas)
      if (replica.trouble === undefined && replica.received > most) most = replica.received;
    return most;
  }

  private async poll(): Promise<void> {
    const at = performance.now();
    try {
      const [[lsn]] = await this.primary(primaryPositionSql, []);
      this.samples.push({ at, lsn: BigInt(lsn as string) });
      if (this.primaryAway && !this.closed) logger.info("the primary answers again: reads follow the replicas' lag");
      this.primaryAway = false;
    } catch (error) {
      // Without new samples no lag can be told: the outage rule decides which replicas serve.
      this.primaryFailed(error);
    }
    // Kept long enough to tell any lag up to the limit, and never fewer than one.
    while (this.samples.length > 1 && this.samples[0].at < at - 2 * this.maxLagMs) this.samples.shift();
    await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
  }

  private async pollReplica(replica: Replica): Promise<void> {
    try {
      const [[lsn, received]] = await withinAnswerTime(queryRows(replica.poll, () => undefined, replayPositionSql, []));
      if (lsn === null) throw new Error('it is not a standby (pg_last_wal_replay_lsn() is null)');
      replica.replayed = BigInt(lsn as string);
      // Null when it streams nothing (it restored from an archive only): what it replayed is all it has.
      replica.received = received === null ? replica.replayed : BigInt(received as string);
      replica.trouble = undefined;
      for (const sample of this.samples)
        if (sample.lsn <= replica.replayed) replica.caughtUpAt = Math.max(replica.caughtUpAt, sample.at);
    } catch (error) {
      replica.trouble = (error as Error).message.split('\n')[0];
      // Reads under way there would wait for their own bound: they go to the primary now.
      replica.pool.abandonRunning('the replica stopped answering its polls');
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
