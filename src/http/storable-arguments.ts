import {
  getArgumentValues,
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { coercedVariables } from '../read-plans/variables.js';
import { fragmentsOf } from '../read-plans/selection.js';
import { unstorableInput } from '../schema/storable.js';
import type { OperationCheck } from './guard.js';

/** A field of the operation that takes arguments. */
interface ArgumentSite {
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
}

// Found once per parsed operation; Yoga's document cache hands back the same one for the same text.
const sitesOf = new WeakMap<OperationDefinitionNode, ArgumentSite[]>();

function argumentSites(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): ArgumentSite[] {
  const fragments = fragmentsOf(document);
  const sites: ArgumentSite[] = [];
  const spread = new Set<string>();
  const walk = (selectionSet: SelectionSetNode, type: GraphQLNamedType | null | undefined) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
        if (!field) continue;
        if (selection.arguments?.length) sites.push({ field, node: selection });
        if (selection.selectionSet) walk(selection.selectionSet, getNamedType(field.type));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(
          selection.selectionSet,
          selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type,
        );
      } else if (!spread.has(selection.name.value)) {
        // A fragment's arguments are the same wherever it is spread.
        spread.add(selection.name.value);
        const fragment = fragments[selection.name.value];
        if (fragment) walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value));
      }
    }
  };
  const root = schema.getRootType(operation.operation);
  walk(operation.selectionSet, root);
  return sites;
}

/** A field's argument values; none when they do not coerce, which the executor reports in its own words. */
function argumentValues(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    return {};
  }
}

/**
 * Refuses, before anything runs, an operation with an argument value PostgreSQL would refuse (see
 * schema/storable.ts): every field's arguments, literal or from variables, in reads, mutations and
 * subscriptions alike (a read plan sends filter values straight to SQL). The error names the
 * argument path (`input.name`), or the variable's for a value given in one. Runs before the read plans.
 */
export const storableArguments: OperationCheck = ({ schema, document, operationName, variableValues }) => {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  let sites = sitesOf.get(operation);
  if (!sites) sitesOf.set(operation, (sites = argumentSites(schema, document, operation)));
  if (!sites.length) return undefined;
  // Variables the executor will refuse are left to it, with its own message.
  const variables = coercedVariables(schema, operation, variableValues);
  if (variables.errors) return undefined;
  // Variables first, so a value from one is named by its variable's path (the REST layer's too); then the literals.
  const values = [
    ...Object.entries(variables.coerced),
    ...sites.flatMap(({ field, node }) => Object.entries(argumentValues(field, node, variables.coerced))),
  ];
  for (const [name, value] of values) {
    const error = unstorableInput(value, name);
    if (error) return error;
  }
  return undefined;
};
