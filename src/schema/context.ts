import type { IncomingMessage } from 'node:http';
import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';
import { resolvePrincipal, type Principal } from '../auth/principal.js';
import type { LiveHub } from '../live/hub.js';
import { addressOf, rateLimitedError, type RateLimits } from '../http/rate-limit/index.js';
import { unauthenticated } from './errors.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Made per request; an operation runs as the principal of its API key, or anonymously without one. */
export interface Context {
  request: Request;
  /** Null for a request without a key, which may ask only for public fields (src/http/use-require-principal.ts). */
  principal: Principal | null;
  /** The instance's subscriptions. */
  live: LiveHub;
  /** Batches what the read plan and Pothos's planned query cannot reach. */
  loaders: Loaders;
}

/** The caller's principal: every field but the public ones runs with one. */
export function principalOf(ctx: Pick<Context, 'principal'>): Principal {
  // useRequirePrincipal refuses such a request before it runs; this keeps that true field by field.
  if (!ctx.principal) throw unauthenticated();
  return ctx.principal;
}

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
