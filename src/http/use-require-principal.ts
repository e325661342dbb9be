import { getOperationAST, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { collectFields, fragmentsOf } from '../read-plans/selection.js';
import type { Context } from '../schema/context.js';
import { unauthenticated } from '../schema/errors.js';

interface OperationArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
}

/** Whether every root field the operation asks for (fragments spread, @skip/@include applied) is public. */
function onlyPublicFields({ schema, document, operationName, variableValues }: OperationArgs): boolean {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!root) return false;
  const fields = root.getFields();
  const scope = { fragments: fragmentsOf(document), variables: variableValues ?? {} };
  const asked = [...collectFields(scope, root, [operation.selectionSet]).values()];
  return asked.length > 0 && asked.every(([node]) => fields[node.name.value]?.extensions.public === true);
}

/**
 * Refuses an operation without an API key, as a request error before anything runs, unless it asks
 * only for public fields: a caller without a key learns nothing else, over /graphql and REST alike.
 */
export function useRequirePrincipal(): Plugin<Context> {
  const refuse = ({
    args,
    setResultAndStopExecution,
  }: {
    args: OperationArgs & { contextValue: unknown };
    setResultAndStopExecution(result: { errors: ReturnType<typeof unauthenticated>[] }): void;
  }) => {
    if ((args.contextValue as Context).principal === null && !onlyPublicFields(args)) {
      setResultAndStopExecution({ errors: [unauthenticated()] });
    }
  };
  return { onExecute: refuse, onSubscribe: refuse };
}
