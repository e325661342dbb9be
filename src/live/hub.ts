import { AsyncResource } from 'node:async_hooks';
import type { DatabaseEngine } from '../db/engine.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { logError } from '../observability/logger.js';
import { reportUnavailable } from '../observability/outage.js';
import type { LiveEvent } from './events.js';
import { readHead, readPast } from './log-read.js';
import { pruneKeys, pruneLog } from './retention.js';

type Listener = (event: LiveEvent) => void;

/** A database that is away is the outage's to log; anything else is a bug. */
function reportFailure(error: unknown, message: string): void {
  if (isDatabaseUnavailable(error)) reportUnavailable(error);
  else logError(error, message);
}

interface Reading {
  engine: DatabaseEngine;
  ready: Promise<void>;
  /** Every entry below it has been handed out; the next read starts there. */
  horizon: string;
  /** The identity of the database read (ChangeLogState), which every cursor carries. */
  identity: string;
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
/** How often each instance deletes the entries past retention. */
const PRUNE_EVERY_MS = 60_000;

/**
 * One per gateway instance: reads the committed changes of every instance from the change log
 * every `pollMs` while it has subscribers, hands them to the instance's subscribers, and counts each
 * key's open subscriptions against its limit. A log rather than NOTIFY, because PostgreSQL commits
 * notifying transactions one at a time for the whole server, and a log can be read again after it.
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
  // Timers run in the context the hub was made in, not in the request that started it (its logs, its statements).
  private readonly detached = new AsyncResource('LiveHub');

  constructor(
    private readonly engine: () => DatabaseEngine,
    readonly maxPerKey: number,
    private readonly pollMs: number,
    private readonly retentionDays: number,
  ) {
    // Every instance prunes, subscribers or none, since every write adds entries.
    this.pruneTimer = setInterval(
      this.detached.bind(() => void this.prune()),
      PRUNE_EVERY_MS,
    ).unref();
  }

  /** Resolves once the instance reads events, so a subscription that starts after it misses nothing committed later. */
  start(): Promise<void> {
    this.wantedAt = Date.now();
    const engine = this.engine();
    if (this.reading?.engine !== engine) {
      const reading: Reading = {
        engine,
        horizon: '0',
        identity: '',
        ready: Promise.resolve(),
        dueAt: 0,
        woken: false,
        inFlight: false,
        lastReadAt: 0,
      };
      reading.ready = readHead(engine.queryRows).then((head) => {
        reading.horizon = head.horizon;
        reading.identity = head.identity;
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

  /**
   * Where the next events handed out start, once `start` resolved: a subscriber that resumes reads
   * the log up to it itself (src/live/stream.ts) and takes the events from there.
   */
  get reached(): { horizon: string; identity: string } | undefined {
    const reading = this.reading;
    return reading && { horizon: reading.horizon, identity: reading.identity };
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
      const { horizon, changes } = await readPast(reading.engine.queryRows, reading.identity, reading.horizon);
      this.failing = false;
      reading.horizon = horizon;
      for (const change of changes) this.deliver(change);
    } catch (error) {
      // The database is away: the same events are read again from the same horizon once it is back.
      if (this.reading === reading && !this.failing) reportFailure(error, 'reading live events failed');
      this.failing = true;
    }
    reading.inFlight = false;
    const delay = reading.woken ? Math.max(0, reading.lastReadAt + WAKE_GAP_MS - Date.now()) : this.pollMs;
    if (this.reading === reading) this.schedule(reading, delay);
  }

  /** Deletes the entries past retention (CHANGE_LOG_RETENTION_DAYS), on the timer; the expired idempotency keys too. Answers how many entries went. */
  async prune(): Promise<number> {
    try {
      const deleted = await pruneLog(this.engine().queryRows, this.retentionDays);
      await pruneKeys(this.engine().queryRows);
      return deleted;
    } catch (error) {
      reportFailure(error, 'deleting old change log entries failed');
      return 0;
    }
  }

  private deliver(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
