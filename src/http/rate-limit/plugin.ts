import type { Plugin } from 'graphql-yoga';
import type { Context } from '../../schema/context.js';
import { rateLimitedError, rateLimitHeaders, type Decision, type RateLimits } from './index.js';

/**
 * Charges each operation on /graphql (and over WebSocket) to its key's bucket, after the operation
 * limits and before anything runs, so a refused operation sends no SQL; and writes the RateLimit-*
 * headers on every answer that was charged (Retry-After too on a refusal).
 */
export function useRateLimits(limits: RateLimits): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { request, principal } = args.contextValue as Context;
      // An anonymous request (the public mutation) was charged to its address with its context.
      if (!principal) return;
      const charge = limits.chargeOperation(
        request,
        principal,
        args.schema,
        args.document,
        args.operationName,
        args.variableValues ?? {},
      );
      if (!charge) return;
      const settle = (decision: Decision) => {
        if (!decision.admitted) setResultAndStopExecution({ errors: [rateLimitedError(decision, charge.cost)] });
      };
      return charge.decision instanceof Promise ? charge.decision.then(settle) : settle(charge.decision);
    },
    onResponse({ request, response }) {
      const decision = limits.decisions.get(request);
      if (!decision) return;
      for (const [name, value] of Object.entries(rateLimitHeaders(decision))) response.headers.set(name, value);
    },
  };
}
