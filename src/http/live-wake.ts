import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * When a mutation is done (its writes have committed), this instance reads the new live events (and
 * the webhooks' new changes) at once, so its own subscribers do not wait for the next poll. Before
 * the planners, whose answer stops the execution for the plugins after them.
 */
export function useLiveWake(...readers: { wake(): void }[]): Plugin {
  return {
    onExecute({ args }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      return {
        onExecuteDone: () => {
          for (const reader of readers) reader.wake();
        },
      };
    },
  };
}
