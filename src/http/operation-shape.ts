import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { fragmentsOf } from '../read-plans/selection.js';
import { introspectionObjects } from './introspection-objects.js';
import type { PageArguments, RowSource } from './node-limit.js';

/** What the limits measure of one operation that does not depend on its variables. */
export interface OperationShape {
  /** Fields on the longest path, the leaf included (fragments add none; an introspection field counts one), and that path. */
  depth: number;
  deepestPath: string;
  /** Aliased fields, counted at every place a fragment is spread; `__typename`'s too, else an operation could be any width. */
  aliases: number;
  /** The response paths of the `__schema` and of the `__type` fields. */
  introspection: { __schema: string[]; __type: string[] };
  rows: RowSource[];
  /** Whether a page size is a variable, so that the rows must be counted with each request's values. */
  variablePages: boolean;
  /** The defaults of the operation's variables, for a page size whose variable a request leaves out. */
  variableDefaults: Record<string, unknown>;
}

/** A selection set's share of the shape; paths are relative to it. */
interface Part {
  depth: number;
  deepest: string[];
  aliases: number;
  introspection: { field: '__schema' | '__type'; path: string }[];
  rows: RowSource[];
}

const isConnection = (type: GraphQLNamedType) =>
  isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();

const isIntrospection = (name: string) => name === SchemaMetaFieldDef.name || name === TypeMetaFieldDef.name;

function add(into: Part, part: Part): void {
  if (part.depth > into.depth) Object.assign(into, { depth: part.depth, deepest: part.deepest });
  into.aliases += part.aliases;
  into.introspection.push(...part.introspection);
  into.rows.push(...part.rows);
}

/** One walk of an operation's selections with their types; each fragment is walked once, however often it is spread. */
class ShapeWalk {
  private readonly fragmentParts = new Map<string, Part>();
  variablePages = false;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
    /** Introspection objects still to count before the answer is too large anyway. */
    private introspectionBudget: number,
  ) {}

  selections(selectionSet: SelectionSetNode, type: GraphQLNamedType | undefined): Part {
    const part: Part = { depth: 0, deepest: [], aliases: 0, introspection: [], rows: [] };
    for (const selection of selectionSet.selections) add(part, this.selection(selection, type));
    return part;
  }

  private selection(selection: SelectionNode, type: GraphQLNamedType | undefined): Part {
    if (selection.kind === Kind.FIELD) return this.field(selection, type);
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      return this.selections(
        selection.selectionSet,
        selection.typeCondition ? (this.schema.getType(selection.typeCondition.name.value) ?? undefined) : type,
      );
    }
    return this.fragment(selection.name.value);
  }

  private fragment(name: string): Part {
    let part = this.fragmentParts.get(name);
    if (!part) {
      // Validation has already refused unknown and cyclic fragments.
      const fragment = this.fragments[name];
      part = this.selections(
        fragment.selectionSet,
        this.schema.getType(fragment.typeCondition.name.value) ?? undefined,
      );
      // Every spread shares one row source, which the count then counts once.
      if (part.rows.length) part.rows = [{ inner: part.rows }];
      this.fragmentParts.set(name, part);
    }
    return part;
  }

  private field(node: FieldNode, parent: GraphQLNamedType | undefined): Part {
    const key = node.alias?.value ?? node.name.value;
    const aliased = node.alias ? 1 : 0;
    const leaf: Part = { depth: 1, deepest: [key], aliases: aliased, introspection: [], rows: [] };
    if (!node.selectionSet) return leaf;
    const name = node.name.value;
    const definition = isIntrospection(name)
      ? name === SchemaMetaFieldDef.name
        ? SchemaMetaFieldDef
        : TypeMetaFieldDef
      : isObjectType(parent) || isInterfaceType(parent)
        ? parent.getFields()[name]
        : undefined;
    const type = definition && getNamedType(definition.type);
    const inner = this.selections(node.selectionSet, type);
    const prefixed = inner.introspection.map(({ field, path }) => ({ field, path: `${key}.${path}` }));
    const part: Part = {
      depth: 1 + inner.depth,
      deepest: [key, ...inner.deepest],
      aliases: aliased + inner.aliases,
      introspection: prefixed,
      rows: [],
    };
    if (isIntrospection(name)) {
      // An introspection answer is measured by its objects, which bound it better than its depth:
      // GraphiQL's own introspection query is 15 fields deep.
      Object.assign(part, { depth: 1, deepest: [key] });
      part.introspection.push({ field: name as '__schema' | '__type', path: key });
      const objects = introspectionObjects(this.schema, this.fragments, node, this.introspectionBudget);
      this.introspectionBudget -= objects;
      part.rows.push({ key, objects });
    } else if (type && isConnection(type)) {
      part.rows.push({ key, page: this.pageArguments(node), inner: inner.rows });
    } else if (inner.rows.length) {
      part.rows.push({ key, inner: inner.rows });
    }
    return part;
  }

  private pageArguments(node: FieldNode): PageArguments {
    const page: PageArguments = {};
    for (const argument of node.arguments ?? []) {
      if (argument.name.value !== 'first' && argument.name.value !== 'last') continue;
      page[argument.name.value] = argument.value;
      if (argument.value.kind === Kind.VARIABLE) this.variablePages = true;
    }
    return page;
  }
}

/**
 * The depth, aliases, introspection fields and row sources of an operation, in one walk of its
 * document. Nothing here depends on a request's variables, so it is worked out once per parsed
 * operation. Introspection answers are counted up to `introspectionBudget` objects in all, so that
 * measuring a hostile document costs no more than that.
 */
export function operationShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  introspectionBudget: number,
): OperationShape {
  const fragments = fragmentsOf(document);
  const root = schema.getRootType(operation.operation);
  const walk = new ShapeWalk(schema, fragments, introspectionBudget);
  const part = walk.selections(operation.selectionSet, root ?? undefined);
  const pathsOf = (field: '__schema' | '__type') => [
    ...new Set(part.introspection.filter((each) => each.field === field).map((each) => each.path)),
  ];
  return {
    depth: part.depth,
    deepestPath: part.deepest.join('.'),
    aliases: part.aliases,
    introspection: { __schema: pathsOf('__schema'), __type: pathsOf('__type') },
    rows: part.rows,
    variablePages: walk.variablePages,
    variableDefaults: Object.fromEntries(
      (operation.variableDefinitions ?? [])
        .filter((variable) => variable.defaultValue)
        .map((variable) => [variable.variable.name.value, valueFromASTUntyped(variable.defaultValue!)]),
    ),
  };
}
