import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type SelectionSetNode,
} from 'graphql';

export interface SelectionScope {
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

type Directed = Parameters<typeof getDirectiveValues>[1];

const fragmentsByDocument = new WeakMap<DocumentNode, Record<string, FragmentDefinitionNode>>();

/** The fragments of a document by name; once per parsed document, which Yoga reuses across requests. */
export function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  let found = fragmentsByDocument.get(document);
  if (!found) {
    found = Object.fromEntries(
      document.definitions.flatMap((node) => (node.kind === Kind.FRAGMENT_DEFINITION ? [[node.name.value, node]] : [])),
    );
    fragmentsByDocument.set(document, found);
  }
  return found;
}

function included(scope: SelectionScope, node: Directed): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, scope.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, scope.variables)?.if !== false;
}

function applies(type: GraphQLObjectType, condition: string | undefined): boolean {
  return !condition || condition === type.name || type.getInterfaces().some((face) => face.name === condition);
}

/**
 * The fields a selection asks of an object of `type`, by response key in order, with fragments
 * spread and @skip/@include applied: graphql-js's field collection, for planning.
 */
export function collectFields(
  scope: SelectionScope,
  type: GraphQLObjectType,
  sets: readonly (SelectionSetNode | undefined)[],
  into = new Map<string, FieldNode[]>(),
): Map<string, FieldNode[]> {
  for (const set of sets) {
    for (const selection of set?.selections ?? []) {
      if (!included(scope, selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        into.set(key, [...(into.get(key) ?? []), selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(type, selection.typeCondition?.name.value))
          collectFields(scope, type, [selection.selectionSet], into);
      } else {
        const fragment = scope.fragments[selection.name.value];
        if (fragment && applies(type, fragment.typeCondition.name.value))
          collectFields(scope, type, [fragment.selectionSet], into);
      }
    }
  }
  return into;
}

/** The fields asked below the nodes of one response key, on an object of `type`. */
export const subfields = (scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]) =>
  collectFields(
    scope,
    type,
    nodes.map((node) => node.selectionSet),
  );
