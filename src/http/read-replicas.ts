import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { db } from '../db/index.js';
import { logger } from '../observability/logger.js';
import type { Context } from '../schema/context.js';

/**
 * With DATABASE_REPLICA_URLS: a query operation reads from a replica that has replayed its caller's
 * last write (else from the primary), and a mutation records how far its caller's writes reach once
 * it has committed. Subscriptions stay on the primary: an event follows a commit that a replica may
 * not have replayed yet. Registered after the read plans, so a planned statement runs inside the read.
 */
export function useReadReplicas(): Plugin<Context> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const replicas = db().replicas;
      if (!replicas) return;
      const userId = (args.contextValue as Context).principal?.userId;
      const operation = getOperationAST(args.document, args.operationName)?.operation;
      if (operation === 'query') {
        setExecuteFn((execution) => replicas.read(userId, () => executeFn(execution)));
        return;
      }
      if (operation !== 'mutation' || userId === undefined) return;
      return {
        // The answer stands: the write committed. Without the record, that user may read a replica
        // that lags (within the limit) until the next write; the primary was failing anyway.
        onExecuteDone: () =>
          replicas
            .wrote(userId)
            .catch((error) => logger.warn({ err: error, userId }, 'could not record a write for read-your-writes')),
      };
    },
  };
}
