import type { GraphQLError } from 'graphql';
import { onPrincipalChange, resolvePrincipal, type Principal } from '../auth/principal.js';
import { roleAllows } from '../auth/roles.js';
import type { Context } from '../schema/context.js';
import { forbidden, tooManySubscriptions, unauthenticated } from '../schema/errors.js';
import type { LiveEvent } from './events.js';
import { logError } from '../observability/logger.js';
import { EventQueue } from './queue.js';

/** What a subscription yields: an event, or the error that ends it. */
export type Delivery = LiveEvent | GraphQLError;

export interface StreamScope {
  /** The organization whose members may follow the stream. */
  organizationId: number;
  accepts(event: LiveEvent): boolean;
  /** An event after which nothing more can come (the board was deleted). */
  isLast?(event: LiveEvent): boolean;
}

const mayRead = (principal: Principal, organizationId: number) => principal.isAdmin || roleAllows(principal.roles.get(organizationId), 'read');

/**
 * The caller's stream of the events in `scope`. The caller's access is checked again before every
 * event and whenever its user's keys or memberships change (the principal cache hears of it through
 * `principal_changed`): a revoked key or a removed membership ends the stream with a final error.
 */
export async function openStream(ctx: Context, scope: StreamScope): Promise<AsyncIterable<Delivery>> {
  const { live, principal } = ctx;
  const secret = ctx.request.headers.get('x-api-key');
  await live.start();
  if (!live.acquire(principal.keyId)) throw tooManySubscriptions(live.maxPerKey);

  const queue = new EventQueue<Delivery>(() => {
    stopEvents();
    stopChanges();
    live.release(principal.keyId);
  });
  const refusal = async (): Promise<GraphQLError | undefined> => {
    const current = await resolvePrincipal(secret);
    if (!current) return unauthenticated('The API key was revoked or has expired: the subscription ended');
    if (!mayRead(current, scope.organizationId)) return forbidden('Access to the organization was withdrawn: the subscription ended');
    return undefined;
  };
  // One check at a time, so events keep their order.
  let pending = Promise.resolve();
  const deliver = (event?: LiveEvent) => {
    pending = pending
      .then(async () => {
        const error = await refusal();
        if (error) {
          queue.push(error);
          queue.end();
        } else if (event) {
          queue.push(event);
          if (scope.isLast?.(event)) queue.end();
        }
      })
      .catch((error: unknown) => logError(error, 'a subscription event failed'));
  };
  const stopEvents = live.onEvent((event) => scope.accepts(event) && deliver(event));
  const stopChanges = onPrincipalChange((userId) => (userId === undefined || userId === principal.userId) && deliver());
  return queue;
}
