import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../auth/principal.js';
import { visibleOrganizations } from '../auth/tenancy.js';
import { inReadScope, type ReadScope } from '../db/row-security.js';
import type { Context } from '../schema/context.js';

function scopeOf(principal: Principal): ReadScope {
  const organizations = visibleOrganizations(principal);
  return { organizations: organizations ? `{${organizations.join(',')}}` : '', user: String(principal.userId) };
}

/**
 * A subscription's scope, read at each statement from the principal its context holds then: the
 * stream puts the caller as checked for each event there (src/live/stream.ts), so an event's reads
 * run under the access of that moment, not of the subscription's start.
 */
function currentScopeOf(context: Context): ReadScope {
  return {
    get organizations() {
      return context.principal ? scopeOf(context.principal).organizations : '{}';
    },
    get user() {
      return String(context.principal?.userId ?? 0);
    },
  };
}

/** The stream with every step of it (an event read, then its selection resolved) run in `scope`. */
function inScopeEach<T>(stream: AsyncIterable<T>, scope: ReadScope): AsyncIterableIterator<T> {
  const iterator = stream[Symbol.asyncIterator]();
  return {
    next: () => inReadScope(scope, () => iterator.next()),
    return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
    throw: (error?: unknown) => iterator.throw?.(error) ?? Promise.reject(error),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Runs every query operation, planned or resolved, and every subscription (its opening read and each
 * event's selection) in its caller's read scope, so that PostgreSQL's row-level security keeps other
 * organizations' rows out of its statements whatever they ask: a second lock behind the tenancy each
 * statement carries. Mutations keep their own checks (a write may read a row its caller no longer
 * sees, as when a removed member's active organization is moved). Registered after the read plans,
 * so it wraps whichever execution they chose.
 */
export function useRowLevelSecurity(): Plugin<Context> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const principal = (args.contextValue as Context).principal;
      if (!principal || getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const scope = scopeOf(principal);
      setExecuteFn((executeArgs) => inReadScope(scope, () => executeFn(executeArgs)));
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const context = args.contextValue as Context;
      if (!context.principal) return;
      const scope = currentScopeOf(context);
      setSubscribeFn(async (subscribeArgs) => {
        const result = await inReadScope(scope, () => subscribeFn(subscribeArgs));
        return Symbol.asyncIterator in result ? inScopeEach(result, scope) : result;
      });
    },
  };
}
