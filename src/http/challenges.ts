import type { MiddlewareHandler } from 'hono';
import type { Plugin } from 'graphql-yoga';
import { challenges } from '../auth/refusals.js';

/**
 * Every 401 says how to authenticate (RFC 9110 15.5.2): a refused bearer token's answer carries its
 * own challenge; any other 401 (no credential, a refused key) gets the schemes the gateway takes.
 * The plugin covers /graphql, the middleware the router's routes.
 */
export function useChallenges(bearerAccepted: boolean): Plugin {
  const challenge = challenges(bearerAccepted);
  return {
    onResponse({ response }) {
      if (response.status === 401 && !response.headers.has('www-authenticate'))
        response.headers.set('WWW-Authenticate', challenge);
    },
  };
}

export function challengeMiddleware(bearerAccepted: boolean): MiddlewareHandler {
  const challenge = challenges(bearerAccepted);
  return async (c, next) => {
    await next();
    if (c.res.status === 401 && !c.res.headers.has('www-authenticate'))
      c.res.headers.set('WWW-Authenticate', challenge);
  };
}
