import { AsyncResource } from 'node:async_hooks';
import type { DatabaseEngine } from '../db/engine.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { logError } from '../observability/logger.js';
import { reportUnavailable } from '../observability/outage.js';
import { decodeEvent, EVENT_TABLE, type LiveEvent } from './events.js';

type Listener = (event: LiveEvent) => void;

/** A database that is away is the outage's to log; anything else is a bug. */
function reportFailure(error: unknown, message: string): void {
  if (isDatabaseUnavailable(error)) reportUnavailable(error);
  else logError(error, message);
}

interface Reading {
  engine: DatabaseEngine;
  ready: Promise<void>;
  horizon: string;
  /** When the server it reads started: another start (a restart, a promoted standby) emptied the unlogged outbox. */
  server: string;
  inFlight: boolean;
  /** When the last read started. */
  lastReadAt: number;
  /** When the next read is due. */
  dueAt: number;
  /** A write of this instance committed while a read was in flight: read again soon after it. */
  woken: boolean;
}

/** How long an instance with no subscriber keeps reading before it stops (a new subscription starts it again). */
const IDLE_STOP_MS = 10_000;
/** The least time between two reads that a write of this instance asked for (a burst of writes is read in batches). */
const WAKE_GAP_MS = 5;
/** How long events are kept for instances that read late; older ones are deleted by any instance. */
const RETENTION_MS = 60_000;

// Every transaction of this database whose id is below the horizon has ended, so its events are all
// visible and none can appear later below it: reading each time from the last horizon to the new one
// reads every committed event once, whatever the order the transactions committed in. The horizon is
// the oldest transaction still running in the statement's snapshot, leaving out those that a backend
// of another database runs (they cannot write this database's outbox, and a transaction held open
// there must not hold back every board here); a running id that no backend shows any more counts.
// The outbox is unlogged: a server that starts (after a crash, or a standby promoted in a failover)
// has it empty, and its transaction ids need not pass the old horizon, so a read that finds another
// server reads its outbox from the start, all of it written since.
const horizon = `(SELECT least(pg_snapshot_xmax(snapshot)::text::bigint, (
    SELECT min(running::text::bigint) FROM pg_snapshot_xip(snapshot) running
    WHERE NOT EXISTS (
      SELECT FROM pg_stat_get_activity(NULL) backend
      WHERE backend.backend_xid::text::bigint = running::text::bigint % 4294967296
        AND backend.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
    )
  )) AS xmin, pg_postmaster_start_time()::text AS server FROM pg_current_snapshot() snapshot)`;
const horizonSql = `SELECT xmin::text, server FROM ${horizon} h`;
const readSql = `SELECT h.xmin::text, h.server, e.payload
FROM ${horizon} h
LEFT JOIN ${EVENT_TABLE} e ON e.xid >= $1::bigint AND e.xid < h.xmin
ORDER BY e.xid, e.id`;
// Only on the server whose horizon it was: on another, newer events may lie below it.
const pruneSql = `WITH gone AS (DELETE FROM ${EVENT_TABLE} WHERE xid < $1::bigint AND pg_postmaster_start_time()::text = $2)
${horizonSql}`;

/**
 * One per gateway instance: reads the committed events of every instance from the outbox (the
 * `live_event` table) every `pollMs` while it has subscribers, hands them to the instance's
 * subscribers, and counts each key's open subscriptions against its limit. An outbox rather than
 * NOTIFY, because PostgreSQL commits notifying transactions one at a time for the whole server.
 */
export class LiveHub {
  private readonly listeners = new Set<Listener>();
  private readonly openByKey = new Map<string, number>();
  private reading: Reading | undefined;
  private wantedAt = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly pruneTimer: NodeJS.Timeout;
  /** Whether the last read failed, so that an outage is logged once, not at every poll. */
  private failing = false;
  /** The horizon at the last prune, and its server, below which the next prune deletes. */
  private pruneBelow: [horizon: string, server: string] = ['0', ''];
  // Timers run in the context the hub was made in, not in the request that started it (its logs, its statements).
  private readonly detached = new AsyncResource('LiveHub');

  constructor(
    private readonly engine: () => DatabaseEngine,
    readonly maxPerKey: number,
    private readonly pollMs: number,
  ) {
    // Every instance prunes, subscribers or none, since every write adds events.
    this.pruneTimer = setInterval(() => void this.prune(), RETENTION_MS).unref();
  }

  /** Resolves once the instance reads events, so a subscription that starts after it misses nothing committed later. */
  start(): Promise<void> {
    this.wantedAt = Date.now();
    const engine = this.engine();
    if (this.reading?.engine !== engine) {
      const reading: Reading = {
        engine,
        horizon: '0',
        server: '',
        ready: Promise.resolve(),
        dueAt: 0,
        woken: false,
        inFlight: false,
        lastReadAt: 0,
      };
      reading.ready = engine.queryRows(horizonSql, []).then(([[horizon, server]]) => {
        reading.horizon = horizon as string;
        reading.server = server as string;
        if (this.reading === reading) this.schedule(reading, this.pollMs);
      });
      // A start that failed (the database was unreachable) is tried again by the next subscription.
      reading.ready.catch(() => this.reading === reading && (this.reading = undefined));
      this.reading = reading;
    }
    return this.reading.ready;
  }

  /** Stops reading and pruning (the gateway closes). */
  stop(): void {
    this.reading = undefined;
    clearTimeout(this.pollTimer);
    clearInterval(this.pruneTimer);
  }

  /** Open subscriptions on this instance. */
  get size(): number {
    return this.listeners.size;
  }

  /** Takes one of the subscription slots of a key, or of a user's tokens (a principal's `holder`); false when all are taken. */
  acquire(holder: string): boolean {
    const open = this.openByKey.get(holder) ?? 0;
    if (open >= this.maxPerKey) return false;
    this.openByKey.set(holder, open + 1);
    return true;
  }

  release(holder: string): void {
    const open = (this.openByKey.get(holder) ?? 1) - 1;
    if (open > 0) this.openByKey.set(holder, open);
    else this.openByKey.delete(holder);
  }

  /** Calls `listener` with every event until the returned function is called. */
  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads the events soon rather than at the next poll: this instance has just committed a write,
   * whose subscribers here should not wait a poll's interval for it.
   */
  wake(): void {
    const reading = this.reading;
    if (!reading || this.listeners.size === 0) return;
    if (reading.inFlight) reading.woken = true;
    else {
      const delay = Math.max(0, reading.lastReadAt + WAKE_GAP_MS - Date.now());
      if (reading.dueAt > Date.now() + delay) this.schedule(reading, delay);
    }
  }

  private schedule(reading: Reading, delayMs: number): void {
    clearTimeout(this.pollTimer);
    reading.dueAt = Date.now() + delayMs;
    this.pollTimer = setTimeout(
      this.detached.bind(() => void this.poll(reading)),
      delayMs,
    ).unref();
  }

  private async poll(reading: Reading): Promise<void> {
    if (this.reading !== reading) return;
    if (this.listeners.size === 0 && Date.now() - this.wantedAt > IDLE_STOP_MS) {
      this.reading = undefined;
      return;
    }
    reading.inFlight = true;
    reading.lastReadAt = Date.now();
    reading.woken = false;
    try {
      const rows = await reading.engine.queryRows(readSql, [reading.horizon]);
      const [[horizon, server]] = rows;
      this.failing = false;
      if (server === reading.server) {
        reading.horizon = horizon as string;
        for (const [, , payload] of rows) if (payload !== null) this.deliver(payload as string);
      } else {
        reading.server = server as string;
        reading.horizon = '0';
        reading.woken = true;
      }
    } catch (error) {
      // The database is away: the same events are read again from the same horizon once it is back.
      if (this.reading === reading && !this.failing) reportFailure(error, 'reading live events failed');
      this.failing = true;
    }
    reading.inFlight = false;
    const delay = reading.woken ? Math.max(0, reading.lastReadAt + WAKE_GAP_MS - Date.now()) : this.pollMs;
    if (this.reading === reading) this.schedule(reading, delay);
  }

  /** Deletes the events below the horizon of the previous prune (a minute ago, on the timer). */
  async prune(): Promise<void> {
    try {
      const [[horizon, server]] = await this.engine().queryRows(pruneSql, this.pruneBelow);
      this.pruneBelow = [horizon as string, server as string];
    } catch (error) {
      reportFailure(error, 'deleting old live events failed');
    }
  }

  private deliver(payload: string): void {
    const event = decodeEvent(payload);
    if (!event) return;
    for (const listener of this.listeners) listener(event);
  }
}
