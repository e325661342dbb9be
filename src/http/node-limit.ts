import {
  getArgumentValues,
  getNamedType,
  getOperationAST,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { defaultPageSize, maxPageSize } from '../schema/pagination.js';

interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

const isConnection = (type: GraphQLNamedType) => isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();

/** The page a connection field asks for: `first` or `last`, else the default; an invalid one counts as the largest. */
function pageSize(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): number {
  let args: { first?: unknown; last?: unknown };
  try {
    args = getArgumentValues(field, node, variables);
  } catch {
    return maxPageSize;
  }
  const size = args.first ?? args.last ?? defaultPageSize;
  return typeof size === 'number' ? Math.min(Math.max(size, 0), maxPageSize) : maxPageSize;
}

function countNodes(walk: Walk, selectionSet: SelectionSetNode, type: GraphQLNamedType | undefined, factor: number): number {
  let nodes = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.selectionSet || !(isObjectType(type) || isInterfaceType(type))) continue;
      const field = type.getFields()[selection.name.value];
      if (!field) continue;
      const inner = getNamedType(field.type);
      let innerFactor = factor;
      if (isConnection(inner)) {
        innerFactor = factor * pageSize(field, selection, walk.variables);
        nodes += innerFactor;
      }
      nodes += countNodes(walk, selection.selectionSet, inner, innerFactor);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      nodes += countNodes(walk, selection.selectionSet, condition ?? undefined, factor);
    } else {
      // Validation has already refused unknown and cyclic fragments.
      const fragment = walk.fragments[selection.name.value];
      if (fragment) nodes += countNodes(walk, fragment.selectionSet, walk.schema.getType(fragment.typeCondition.name.value), factor);
    }
  }
  return nodes;
}

/**
 * The most rows an operation can return, counted as GitHub's API counts them: each connection
 * returns its page size (`first` or `last`, or the default) for every row above it, whatever the
 * data holds. @include and @skip are ignored, so the count is an upper bound.
 */
export function possibleNodes(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> = {}): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const fragments = Object.fromEntries(
    document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return countNodes({ schema, fragments, variables }, operation.selectionSet, root ?? undefined, 1);
}

/**
 * Refuses, before anything runs, an operation that could return more than `maxNodes` rows. Depth,
 * alias and cost limits do not multiply page sizes, so without this a few nested connections of 100
 * could ask for millions of rows; bounded answers are what keep the bounded heap (MAX_HEAP_MB) safe.
 */
export function nodeLimit(maxNodes: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const nodes = possibleNodes(args.schema, args.document, args.operationName, args.variableValues ?? {});
      if (nodes <= maxNodes) return;
      const message = `Operation could return up to ${nodes} rows (each connection's page size times the rows above it); the limit is ${maxNodes}. Ask for smaller pages.`;
      setResultAndStopExecution({ errors: [new GraphQLError(message, { extensions: { code: 'OPERATION_TOO_COMPLEX' } })] });
    },
  };
}
