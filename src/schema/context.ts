import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';
import { resolvePrincipal, type Principal } from '../auth/principal.js';
import type { LiveHub } from '../live/hub.js';
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

/** The context factory of one gateway instance. */
export function contextFactory(live: LiveHub) {
  return async (initial: YogaInitialContext): Promise<Context> => {
    const principal = await resolvePrincipal(initial.request.headers.get('x-api-key'));
    if (!principal) throw unauthenticated();
    return { ...initContextCache(), request: initial.request, principal, live, loaders: createLoaders(principal) };
  };
}
