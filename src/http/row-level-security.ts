import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { visibleOrganizations } from '../auth/tenancy.js';
import { inReadScope } from '../db/row-security.js';
import type { Context } from '../schema/context.js';

/**
 * Runs every query operation, planned or resolved, in its caller's read scope, so that PostgreSQL's
 * row-level security keeps other organizations' rows out of its statements whatever they ask: a
 * second lock behind the tenancy each statement carries. Mutations keep their own checks (a write may
 * read a row its caller no longer sees, as when a removed member's active organization is moved).
 * Registered after the read plans, so it wraps whichever execution they chose.
 */
export function useRowLevelSecurity(): Plugin<Context> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const principal = (args.contextValue as Context).principal;
      if (!principal || getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const organizations = visibleOrganizations(principal);
      const scope = {
        organizations: organizations ? `{${organizations.join(',')}}` : '',
        user: String(principal.userId),
      };
      setExecuteFn((executeArgs) => inReadScope(scope, () => executeFn(executeArgs)));
    },
  };
}
