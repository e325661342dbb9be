import type { YogaInitialContext } from 'graphql-yoga';
import { initContextCache } from '@pothos/core';
import { resolvePrincipal, type Principal } from '../auth/principal.js';
import type { LiveHub } from '../live/hub.js';
import { unauthenticated } from './errors.js';

/** Made per request; an operation runs as the principal of its API key, or anonymously without one. */
export interface Context {
  request: Request;
  /** Null for a request without a key, which may ask only for public fields (src/http/use-require-principal.ts). */
  principal: Principal | null;
  /** The instance's subscriptions. */
  live: LiveHub;
}

/** The caller's principal: every field but the public ones runs with one. */
export function principalOf(ctx: Context): Principal {
  // useRequirePrincipal refuses such a request before it runs; this keeps that true field by field.
  if (!ctx.principal) throw unauthenticated();
  return ctx.principal;
}

/** The context factory of one gateway instance; a key that is sent must be valid. */
export function contextFactory(live: LiveHub) {
  return async (initial: YogaInitialContext): Promise<Context> => {
    const key = initial.request.headers.get('x-api-key');
    const principal = key === null ? null : await resolvePrincipal(key);
    if (key !== null && !principal) throw unauthenticated();
    return { ...initContextCache(), request: initial.request, principal, live };
  };
}
