import { AsyncResource } from 'node:async_hooks';
import type { DatabaseEngine } from '../db/engine.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { logError, logger } from '../observability/logger.js';
import { countWebhookAttempt } from '../observability/metrics.js';
import { reportUnavailable } from '../observability/outage.js';
import { postWebhook } from './client.js';
import { eventTypeOf, messageIdOf, wants, webhookBody } from './events.js';
import type { ChangeFeed, WebhookChange } from './feed.js';
import { nextDelayMs } from './schedule.js';
import type { SecretBox } from './secret-box.js';
import { signedHeaders } from './signature.js';
import {
  claimDeliveries,
  fanOut,
  followingEndpoints,
  pruneDeliveries,
  recordOutcomes,
  type Claimed,
  type FollowingEndpoint,
  type NewDelivery,
  type Outcome,
  type Transact,
} from './store.js';

/** Attempts one instance runs at once, over every endpoint. */
const MAX_IN_FLIGHT = 256;
/** Pending deliveries an endpoint may have: the rest of its changes wait in the log, read as these go out. */
export const PENDING_WINDOW = 1000;
/** The most changes read for one endpoint at a tick. */
const READ_BATCH = 200;
/** The wait between ticks while the database is away, or while no delivery is due anywhere for long. */
const IDLE_POLL_MS = 1000;
/** How often old deliveries are deleted, and how many at most each time. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1000;
/** The least time between two ticks that wakes asked for: a burst of writes is read in batches. */
const WAKE_GAP_MS = 5;
/** How long a stopping instance waits for its attempts in flight; past it, their leases hand them to another instance. */
const STOP_GRACE_MS = 12_000;

export interface DispatcherOptions {
  engine: () => DatabaseEngine;
  /** A transaction on the primary (the claim's lock and its count of deliveries in flight). */
  transact: Transact;
  box: SecretBox;
  /** Private and loopback addresses, and http:// to a loopback host (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Most deliveries of one endpoint in flight across every instance (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Time between two ticks while deliveries are due or changes may be coming (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** Deliveries older than this are deleted, as the change log's entries are; 0 keeps them all. */
  retentionDays: number;
  /** The change log; without one, only deliveries already written go out. */
  feed?: ChangeFeed;
}

/**
 * One per gateway instance: reads each endpoint's changes from the log into delivery rows, claims the
 * due ones (any instance may take any), attempts them and writes how each went. Everything it holds
 * is a lease in the database, so an instance that dies loses nothing: its leases run out and another
 * instance attempts those deliveries again.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled tick is due, and when the last one started. */
  private dueAt = 0;
  private lastTickAt = 0;
  private running = false;
  private stopped = false;
  private ticking = false;
  /** The tick under way, or the last one: a stop waits for it, so that no statement follows the stop. */
  private ticked: Promise<void> = Promise.resolve();
  private wokenDuringTick = false;
  private readonly inFlight = new Set<Promise<void>>();
  private outcomes: Outcome[] = [];
  private flushing: Promise<void> | undefined;
  /** Whether the last tick failed, so that a failure is logged once, not at every tick. */
  private failing = false;
  private lastPrune = 0;
  // Timers run in the context the dispatcher was made in, never in a request's (its logs, its row-level scope).
  private readonly detached = new AsyncResource('WebhookDispatcher');

  constructor(private readonly options: DispatcherOptions) {}

  private get run() {
    return this.options.engine().queryRows;
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.schedule(0);
  }

  /** A tick soon rather than at the next poll: this instance committed a change, or an attempt ended. */
  wake(): void {
    if (!this.running) return;
    if (this.ticking) return void (this.wokenDuringTick = true);
    const delay = Math.max(0, this.lastTickAt + WAKE_GAP_MS - Date.now());
    if (this.dueAt > Date.now() + delay) this.schedule(delay);
  }

  /** Stops claiming, and waits (a bounded time) for the tick under way, the attempts in flight and their outcomes to be written. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    clearTimeout(this.timer);
    const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
    // Outcomes that cannot be written (the database is away) are left to the leases.
    const settled = this.ticked.then(() => Promise.all(this.inFlight)).then(() => this.flush().catch(() => undefined));
    await Promise.race([settled, grace]);
  }

  /** Attempts in flight on this instance. */
  get attempting(): number {
    return this.inFlight.size;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.dueAt = Date.now() + delayMs;
    this.timer = setTimeout(
      this.detached.bind(() => {
        if (!this.ticking) this.ticked = this.tick();
      }),
      delayMs,
    ).unref();
  }

  private async tick(): Promise<void> {
    if (!this.running || this.ticking) return;
    this.ticking = true;
    this.wokenDuringTick = false;
    this.lastTickAt = Date.now();
    let busy = false;
    try {
      await this.flush();
      if (this.options.feed) await this.readChanges(this.options.feed);
      // A stop during the tick claims nothing more: what was read waits for the next instance.
      const room = this.running ? MAX_IN_FLIGHT - this.inFlight.size : 0;
      if (room > 0) {
        const claimed = await claimDeliveries(this.run, this.options.transact, this.options.concurrency, room);
        for (const delivery of claimed) this.attempt(delivery);
        busy = claimed.length === room;
      }
      await this.pruneNow();
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        if (isDatabaseUnavailable(error)) reportUnavailable(error);
        else logError(error, 'webhook dispatcher: a tick failed');
      }
      this.failing = true;
    }
    this.ticking = false;
    if (!this.running) return;
    const soon = Math.max(0, this.lastTickAt + WAKE_GAP_MS - Date.now());
    this.schedule(this.failing ? IDLE_POLL_MS : busy || this.wokenDuringTick ? soon : this.options.pollMs);
  }

  /** Reads each endpoint's new changes from the log into its deliveries, as far as its window allows. */
  private async readChanges(feed: ChangeFeed): Promise<void> {
    const endpoints = (await followingEndpoints(this.run, PENDING_WINDOW)).filter((endpoint) => endpoint.room > 0);
    // Endpoints of one organization at one cursor (the usual case: all caught up) share a read.
    const groups = new Map<string, FollowingEndpoint[]>();
    for (const endpoint of endpoints) {
      const key = `${endpoint.organizationId} ${endpoint.cursor}`;
      groups.set(key, [...(groups.get(key) ?? []), endpoint]);
    }
    if (groups.size === 0) return;
    const moves: { endpointId: number; previous: string; next: string }[] = [];
    const deliveries: NewDelivery[] = [];
    const reads = [...groups.values()].map(([{ organizationId, cursor }]) => ({ organizationId, after: cursor }));
    // One read for every organization (takeChanges keeps each endpoint within its room).
    const pages = await feed.read(reads, READ_BATCH);
    for (const [i, group] of [...groups.values()].entries()) {
      const cursor = reads[i].after;
      for (const endpoint of group) {
        const taken = takeChanges(endpoint, pages[i].changes, pages[i].cursor);
        if (taken.next === cursor) continue;
        moves.push({ endpointId: endpoint.id, previous: cursor, next: taken.next });
        deliveries.push(...taken.deliveries);
      }
    }
    await fanOut(this.run, moves, deliveries);
  }

  /** One attempt: signed at the moment it is sent, with every secret that signs now. */
  private attempt(delivery: Claimed): void {
    const { box, allowPrivate } = this.options;
    const done = (async () => {
      let outcome: Outcome;
      try {
        const secrets = delivery.secrets.map((sealed) => box.open(sealed, delivery.organizationId));
        const headers = signedHeaders(delivery.messageId, new Date(), delivery.body, secrets);
        const started = performance.now();
        const result = await postWebhook(delivery.url, headers, delivery.body, { allowPrivate });
        outcome = outcomeOf(delivery, result.status, result.excerpt, result.retryAfterMs);
        const kind = outcome.retryInMs === null ? 'delivered' : outcome.gone ? 'gone' : 'failed';
        countWebhookAttempt(kind, (performance.now() - started) / 1000);
      } catch (error) {
        // A secret that does not open (its key left WEBHOOK_ENCRYPTION_KEY): retried, as the operator may bring the key back.
        logError(error, 'webhook dispatcher: an attempt could not be made');
        outcome = outcomeOf(delivery, null, (error as Error).message.slice(0, 200));
      }
      if (outcome.gone)
        logger.warn({ endpointId: delivery.endpointId }, 'webhook endpoint answered 410 Gone: disabled');
      this.outcomes.push(outcome);
      await this.flush().catch(() => undefined);
      this.wake();
    })();
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  /** Writes the outcomes gathered so far in one statement; those that fail to be written wait for the next tick. */
  private flush(): Promise<void> {
    this.flushing ??= this.writeOutcomes().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeOutcomes(): Promise<void> {
    while (this.outcomes.length > 0) {
      const batch = this.outcomes;
      this.outcomes = [];
      try {
        await recordOutcomes(this.run, batch);
      } catch (error) {
        this.outcomes.unshift(...batch);
        throw error;
      }
    }
  }

  private async pruneNow(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS || this.options.retentionDays === 0) return;
    this.lastPrune = Date.now();
    await pruneDeliveries(this.run, this.options.retentionDays, PRUNE_BATCH);
  }
}

/** What an attempt's answer makes of its delivery: delivered (2xx), its endpoint gone (410), or retried later. */
export function outcomeOf(delivery: Claimed, status: number | null, excerpt: string, retryAfterMs?: number): Outcome {
  const delivered = status !== null && status >= 200 && status < 300;
  return {
    id: delivery.id,
    attempt: delivery.attempt,
    status,
    excerpt,
    retryInMs: delivered ? null : nextDelayMs(delivery.attempt, retryAfterMs),
    gone: status === 410,
  };
}

/**
 * The deliveries an endpoint takes from a page of its organization's changes, up to its room, and the
 * cursor it reads from next: past the last change it looked at.
 */
export function takeChanges(
  endpoint: FollowingEndpoint,
  changes: readonly WebhookChange[],
  pageCursor: string,
): { deliveries: NewDelivery[]; next: string } {
  const deliveries: NewDelivery[] = [];
  for (const [index, change] of changes.entries()) {
    if (deliveries.length === endpoint.room) return { deliveries, next: changes[index - 1].cursor };
    if (!wants(endpoint, change)) continue;
    deliveries.push({
      endpointId: endpoint.id,
      messageId: messageIdOf(change),
      eventType: eventTypeOf(change),
      lane: change.whiteboardId ?? 0,
      body: webhookBody(change),
    });
  }
  return { deliveries, next: pageCursor };
}
