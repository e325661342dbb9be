import type { IncomingMessage } from 'node:http';
import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';
import { resolvePrincipal, type Principal } from '../auth/principal.js';
import type { LiveHub } from '../live/hub.js';
import { addressOf, rateLimitedError, type RateLimits } from '../http/rate-limit/index.js';
import { unauthenticated } from './errors.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Made per request; every operation runs as the principal of its API key. */
export interface Context {
  request: Request;
  principal: Principal;
  /** The instance's subscriptions. */
  live: LiveHub;
  /** Batches what the read plan and Pothos's planned query cannot reach. */
  loaders: Loaders;
}

/** The context factory of one gateway instance; with a rate limit, a request over HTTP without a valid key is charged to its address. */
export function contextFactory(live: LiveHub, rateLimits?: RateLimits) {
  // `req` is there when Yoga's Node adapter serves the request (not for REST calls or WebSocket operations, whose keys were checked already).
  return async (initial: YogaInitialContext & { req?: IncomingMessage }): Promise<Context> => {
    const principal = await resolvePrincipal(initial.request.headers.get('x-api-key'));
    if (!principal) {
      const decision = rateLimits && initial.req && (await rateLimits.chargeAddress(initial.request, addressOf(initial.req)));
      throw decision && !decision.admitted ? rateLimitedError(decision, 1) : unauthenticated();
    }
    return { ...initContextCache(), request: initial.request, principal, live, loaders: createLoaders(principal) };
  };
}
