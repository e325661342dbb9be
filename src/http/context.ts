import type { IncomingMessage } from 'node:http';
import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';
import { resolvePrincipal } from '../auth/principal.js';
import type { LiveHub } from '../live/hub.js';
import type { Context } from '../schema/context.js';
import { unauthenticated } from '../schema/errors.js';
import { createLoaders } from '../schema/loaders.js';
import { addressOf, rateLimitedError, type RateLimits } from './rate-limit/index.js';

/**
 * The context factory of one gateway instance; a key that is sent must be valid. With a rate limit,
 * a request over HTTP without a valid key is charged to its address.
 */
export function contextFactory(live: LiveHub, rateLimits?: RateLimits) {
  // `req` is there when Yoga's Node adapter serves the request (not for REST calls or WebSocket operations, charged already).
  return async (initial: YogaInitialContext & { req?: IncomingMessage }): Promise<Context> => {
    const key = initial.request.headers.get('x-api-key');
    const principal = key === null ? null : await resolvePrincipal(key);
    if (!principal) {
      const decision =
        rateLimits && initial.req && (await rateLimits.chargeAddress(initial.request, addressOf(initial.req)));
      if (decision && !decision.admitted) throw rateLimitedError(decision, 1);
      if (key !== null) throw unauthenticated();
    }
    return { ...initContextCache(), request: initial.request, principal, live, loaders: createLoaders(principal) };
  };
}
