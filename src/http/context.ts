import type { IncomingMessage } from 'node:http';
import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';
import { authenticateRequest } from '../auth/credentials.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import type { LiveHub } from '../live/hub.js';
import type { Context } from '../schema/context.js';
import type { Webhooks } from '../webhooks/index.js';
import { refused } from '../schema/errors.js';
import { createLoaders } from '../schema/loaders.js';
import { addressOf, rateLimitedError, type RateLimits } from './rate-limit/index.js';

/**
 * The context factory of one gateway instance; a key or bearer token that is sent must be valid.
 * With a rate limit, a request over HTTP without a valid credential is charged to its address.
 */
export function contextFactory(
  live: LiveHub,
  verifier: TokenVerifier | undefined,
  rateLimits?: RateLimits,
  webhooks?: Webhooks,
) {
  // `req` is there when Yoga's Node adapter serves the request (not for REST calls or WebSocket operations, charged already).
  return async (initial: YogaInitialContext & { req?: IncomingMessage }): Promise<Context> => {
    const { headers } = initial.request;
    const {
      credential,
      principal,
      refused: refusal,
    } = await authenticateRequest(headers.get('x-api-key'), headers.get('authorization'), verifier);
    if (!principal) {
      const decision =
        rateLimits && initial.req && (await rateLimits.chargeAddress(initial.request, addressOf(initial.req)));
      if (decision && !decision.admitted) throw rateLimitedError(decision, 1);
      if (refusal) throw refused(refusal);
    }
    return {
      ...initContextCache(),
      request: initial.request,
      credential,
      principal,
      live,
      webhooks,
      loaders: createLoaders(principal),
    };
  };
}
