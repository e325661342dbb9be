import { getVariableValues, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

type Coerced = ReturnType<typeof getVariableValues>;

// Keyed by the request's variables object, which every plugin of one execution is handed alike.
const coercedByValues = new WeakMap<object, Map<OperationDefinitionNode, Coerced>>();

/** graphql-js's coercion of an operation's variables, done once per execution for every plugin that reads them. */
export function coercedVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  values: Record<string, unknown> | null | undefined,
): Coerced {
  if (!values) return getVariableValues(schema, operation.variableDefinitions ?? [], {});
  let byOperation = coercedByValues.get(values);
  if (!byOperation) coercedByValues.set(values, (byOperation = new Map()));
  let coerced = byOperation.get(operation);
  if (!coerced)
    byOperation.set(operation, (coerced = getVariableValues(schema, operation.variableDefinitions ?? [], values)));
  return coerced;
}
