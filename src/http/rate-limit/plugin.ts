import type { Plugin } from 'graphql-yoga';
import type { Context } from '../../schema/context.js';
import { contextOf, type OperationCheck } from '../guard.js';
import { rateLimitedError, rateLimitHeaders, type Decision, type RateLimits } from './index.js';

/**
 * Charges each operation to its key's bucket, after the operation limits and before anything runs,
 * so a refused operation sends no SQL: on /graphql, over WebSocket, and a subscription once, when it
 * opens. A REST call was charged by its route already.
 */
export function rateLimited(limits: RateLimits): OperationCheck {
  return (operation) => {
    const { request, principal } = contextOf(operation);
    // An anonymous request (the public mutation) was charged to its address with its context.
    if (!principal) return undefined;
    const { schema, document, operationName, variableValues } = operation;
    const charge = limits.chargeOperation(request, principal, schema, document, operationName, variableValues ?? {});
    if (!charge) return undefined;
    const settle = (decision: Decision) => (decision.admitted ? undefined : rateLimitedError(decision, charge.cost));
    return charge.decision instanceof Promise ? charge.decision.then(settle) : settle(charge.decision);
  };
}

/** Writes the RateLimit-* headers on every answer that was charged (Retry-After too on a refusal). */
export function useRateLimitHeaders(limits: RateLimits): Plugin<Context> {
  return {
    onResponse({ request, response }) {
      const decision = limits.decisions.get(request);
      if (!decision) return;
      for (const [name, value] of Object.entries(rateLimitHeaders(decision))) response.headers.set(name, value);
    },
  };
}
