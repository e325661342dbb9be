import type { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { authenticate } from '../auth/credentials.js';
import { onPrincipalChange, type Principal } from '../auth/principal.js';
import { isRefusal } from '../auth/refusals.js';
import { roleAllows } from '../auth/roles.js';
import { principalOf, type Context } from '../schema/context.js';
import { db } from '../db/index.js';
import {
  credentialNames,
  cursorExpired,
  forbidden,
  serviceUnavailable,
  tooManySubscriptions,
  unauthenticated,
  unreadEvents,
} from '../schema/errors.js';
import { createLoaders } from '../schema/loaders.js';
import type { LiveEvent } from './events.js';
import { expiredBecause, readScope, type LogScope } from './log-read.js';
import { before, encodeCursor, isAfter, type Cursor, type Position } from './positions.js';
import { logError } from '../observability/logger.js';
import { EventQueue, MAX_UNREAD_ITEMS } from './queue.js';

/** What a subscription yields: an event, or the error that ends it. */
export type Delivery = LiveEvent | GraphQLError;

export interface StreamScope {
  /** The organization whose members may follow the stream. */
  organizationId: number;
  /** The log's entries a resuming stream reads again, before `accepts` picks its events among them. */
  log: LogScope;
  accepts(event: LiveEvent): boolean;
  /** An event after which nothing more can come (the board was deleted). */
  isLast?(event: LiveEvent): boolean;
}

/** Entries a resuming stream reads at once; the next page waits until the client has read these. */
const CATCH_UP_PAGE = 500;

// A timer fires at most every ~24.8 days (a 32-bit delay): a later expiry is simply looked at again then.
const MAX_TIMER_MS = 2 ** 31 - 1;

const mayRead = (principal: Principal, organizationId: number) =>
  principal.isAdmin || roleAllows(principal.roles.get(organizationId), 'read');

const isPast = (at: Date | null) => at !== null && at.getTime() <= Date.now();

/** The end of a stream whose key or token expired: a client subscribes again with a renewed one. */
const expired = (principal: Principal, at: Date) =>
  unauthenticated(
    `The ${credentialNames[principal.credential]} expired at ${at.toISOString()}: the subscription ended; subscribe again with a renewed one`,
    'EXPIRED',
  );

/**
 * The caller's stream of the events in `scope`. The caller's access is checked again before every
 * event and whenever its user's keys, identities or memberships change (the principal cache hears of
 * it through `principal_changed`): a revoked key or token, a revoked identity or a removed membership
 * ends the stream with a final error. At the key's or token's expiry the stream ends, event or none,
 * with `UNAUTHENTICATED` (reason `EXPIRED`), and asks nothing more of anyone: the clock leeway a
 * token is accepted with does not keep a stream past `exp`, and one already past it never opens.
 * Each event's selection runs as the caller was at its check: `ctx` takes that principal.
 *
 * With `after` (a cursor of an event the client received), the stream first reads the log's entries
 * after it, a page at a time as the client reads them, then goes on with the live events; a cursor
 * the log cannot continue from is told once (CURSOR_EXPIRED) and the stream goes on from now.
 */
export async function openStream(ctx: Context, scope: StreamScope, after?: Cursor): Promise<AsyncIterable<Delivery>> {
  const { live } = ctx;
  const principal = principalOf(ctx);
  const { credential } = ctx;
  let expiresAt = principal.expiresAt;
  if (expiresAt && isPast(expiresAt)) throw expired(principal, expiresAt);
  await live.start();
  if (!live.acquire(principal.holder)) throw tooManySubscriptions(live.maxPerKey);

  let expiry: NodeJS.Timeout | undefined;
  let closed = false;
  const queue = new EventQueue<Delivery>(
    () => {
      closed = true;
      stopEvents();
      stopChanges();
      clearTimeout(expiry);
      live.release(principal.holder);
    },
    () => unreadEvents(MAX_UNREAD_ITEMS),
  );
  // Re-armed after every check, so an expiry moved since the stream opened is the one watched.
  const watchExpiry = () => {
    clearTimeout(expiry);
    if (!expiresAt || closed) return;
    const wait = Math.min(Math.max(1, expiresAt.getTime() - Date.now()), MAX_TIMER_MS);
    expiry = setTimeout(() => (isPast(expiresAt) ? void deliver([]) : watchExpiry()), wait).unref();
  };
  const refusal = async (): Promise<GraphQLError | undefined> => {
    if (expiresAt && isPast(expiresAt)) return expired(principal, expiresAt);
    const current = credential && (await authenticate(credential));
    if (!current || isRefusal(current))
      return unauthenticated(
        current?.bearer
          ? `${current.message} (the subscription ended)`
          : 'The API key was revoked or has expired: the subscription ended',
        current?.reason,
      );
    if (!mayRead(current, scope.organizationId))
      return forbidden('Access to the organization was withdrawn: the subscription ended');
    expiresAt = current.expiresAt;
    watchExpiry();
    // The events run as the caller is now (its roles in other organizations too), not as it subscribed.
    if (current !== ctx.principal) Object.assign(ctx, { principal: current, loaders: createLoaders(current) });
    return undefined;
  };
  // One check at a time, so events keep their order; none once the stream has ended. A client gets
  // each change once: none at or before the last position it was given.
  let pending = Promise.resolve();
  let last: Position | undefined = after;
  const deliver = (events: LiveEvent[]) => {
    pending = pending
      .then(async () => {
        if (closed) return;
        const error = await refusal();
        if (error) {
          queue.push(error);
          return queue.end();
        }
        for (const event of events) {
          if (last && !isAfter(event.position, last)) continue;
          last = event.position;
          queue.push(event);
          if (scope.isLast?.(event)) return queue.end();
        }
      })
      .catch((error: unknown) => logError(error, 'a subscription event failed'));
    return pending;
  };
  // While the stream reads the log again, live events wait, in order, behind what it reads.
  let held: LiveEvent[] | undefined = after && [];
  const stopEvents = live.onEvent((event) => {
    if (!scope.accepts(event)) return;
    if (!held) return void deliver([event]);
    held.push(event);
    if (held.length > MAX_UNREAD_ITEMS) queue.push(unreadEvents(MAX_UNREAD_ITEMS)), queue.end();
  });
  if (after) {
    void catchUp(after, live.reached!.horizon).finally(() => {
      const waiting = held ?? [];
      held = undefined;
      void deliver(waiting);
    });
  }
  const stopChanges = onPrincipalChange(
    (userId) => (userId === undefined || userId === principal.userId) && void deliver([]),
  );
  watchExpiry();
  // A client that left while the stream opened (its set-up waited for the database) holds nothing,
  // nor one that leaves later: over SSE the server would notice only at its next write.
  const { signal } = ctx.request;
  if (signal.aborted) void queue.return();
  else signal.addEventListener('abort', () => void queue.return(), { once: true });
  return queue;

  /** Reads the entries after `cursor` below the hub's `horizon` into the stream, a page once the client read the last. */
  async function catchUp(cursor: Cursor, horizon: string): Promise<void> {
    let from: Position = cursor;
    try {
      for (;;) {
        const { head, changes } = await readScope(db().engine.queryRows, scope.log, from, CATCH_UP_PAGE, horizon);
        const expired = expiredBecause(cursor, head);
        if (expired) {
          const now = encodeCursor({ identity: head.identity, ...before(horizon) });
          return void queue.push(cursorExpired(`${expired}; the stream goes on from now`, now));
        }
        await deliver(changes.filter(scope.accepts));
        if (changes.length < CATCH_UP_PAGE || closed) return;
        from = changes[changes.length - 1].position;
        await queue.drained();
      }
    } catch (error) {
      // The log could not be read (the database is away): the client resumes again from its last event.
      if (isDatabaseUnavailable(error)) queue.push(serviceUnavailable());
      else logError(error, 'a subscription could not read the change log');
      queue.end();
    }
  }
}
