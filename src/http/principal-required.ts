import { getOperationAST } from 'graphql';
import { collectFields, fragmentsOf } from '../read-plans/selection.js';
import { unauthenticated } from '../schema/errors.js';
import { contextOf, type GuardedOperation, type OperationCheck } from './guard.js';

/** Whether every root field the operation asks for (fragments spread, @skip/@include applied) is public. */
function onlyPublicFields({ schema, document, operationName, variableValues }: GuardedOperation): boolean {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!root) return false;
  const fields = root.getFields();
  const scope = { fragments: fragmentsOf(document), variables: variableValues ?? {} };
  const asked = [...collectFields(scope, root, [operation.selectionSet]).values()];
  return asked.length > 0 && asked.every(([node]) => fields[node.name.value]?.extensions.public === true);
}

/**
 * Refuses an operation without an API key or bearer token, before anything runs, unless it asks
 * only for public fields: a caller without one learns nothing else, on any door.
 */
export const principalRequired: OperationCheck = (operation) =>
  contextOf(operation).principal === null && !onlyPublicFields(operation) ? unauthenticated() : undefined;
