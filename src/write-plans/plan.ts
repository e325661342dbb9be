import {
  BREAK,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  locatedError,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { coercedVariables } from '../read-plans/variables.js';
import { isDeepStrictEqual } from 'node:util';
import { keyAllows } from '../auth/roles.js';
import { modelCatalog } from '../schema/model-catalog.js';
import { authScopesOf, type ReadPlanExtension } from '../read-plans/extensions.js';
import { collectFields, fragmentsOf, subfields } from '../read-plans/selection.js';
import type { Context } from '../schema/context.js';
import { encodeGlobalId } from '../schema/relay-id.js';
import type { WritePlanExtension } from './extension.js';

type Row = Record<string, unknown>;

/** One response key of the payload: its type's name, or fields of the written row. */
interface PayloadEntry {
  key: string;
  value(row: Row): unknown;
}

/** A mutation operation of one planned field, worked out once per parsed operation. */
interface Shape {
  key: string;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  plan: WritePlanExtension;
  payload: PayloadEntry[];
}

// The Mutation type's one scope (builder.ts): the key must allow writes, checked here as Pothos would.
const mutationScopes = { writeKey: true };

const shapes = new WeakMap<OperationDefinitionNode, Shape | string>();

const hasDirectives = (document: DocumentNode) => {
  let found = false;
  visit(document, {
    Directive() {
      found = true;
      return BREAK;
    },
  });
  return found;
};

/** A field of the written row as the executor completes it: a column through its scalar, the global id, or the type's name. */
function rowField(
  type: GraphQLObjectType,
  plan: WritePlanExtension,
  nodes: FieldNode[],
): ((row: Row) => unknown) | string {
  const name = nodes[0].name.value;
  if (name === '__typename') return () => type.name;
  const definition = type.getFields()[name];
  if (!definition || authScopesOf(definition.extensions)) return `${type.name}.${name} has auth scopes`;
  const exposed = definition.extensions?.pothosExposedField as string | undefined;
  const output = definition.type;
  const leaf = getNamedType(output);
  if (exposed && isLeafType(leaf) && !isListType(isNonNullType(output) ? output.ofType : output)) {
    const column = modelCatalog().get(plan.model)?.columns.get(exposed);
    if (!column || (isNonNullType(output) && !column.isRequired)) return `${type.name}.${name}: nullable column`;
    return (row) => (row[exposed] == null ? null : leaf.serialize(row[exposed]));
  }
  const identified = type.extensions?.readPlan as ReadPlanExtension | undefined;
  if (name === 'id' && identified && 'globalIdField' in identified) {
    const idField = identified.globalIdField;
    return (row) => encodeGlobalId(type.name, row[idField] as number);
  }
  return `${type.name}.${name} is not a column`;
}

function shapeOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Shape | string {
  const mutation = schema.getMutationType();
  if (!mutation || !isDeepStrictEqual(authScopesOf(mutation.extensions), mutationScopes)) return 'mutation scopes';
  if (hasDirectives(document)) return 'directives';
  const scope = { fragments: fragmentsOf(document), variables: {} };
  const roots = [...collectFields(scope, mutation, [operation.selectionSet])];
  if (roots.length !== 1 || roots[0][1].length !== 1) return 'not one mutation field';
  const [[key, [node]]] = roots;
  const field = mutation.getFields()[node.name.value];
  const plan = field?.extensions?.writePlan as WritePlanExtension | undefined;
  if (!plan || authScopesOf(field.extensions)) return `${node.name.value} is not planned`;
  const payloadType = getNamedType(field.type);
  if (!isObjectType(payloadType) || authScopesOf(payloadType.extensions)) return 'payload type';
  const payload: PayloadEntry[] = [];
  for (const [entryKey, nodes] of subfields(scope, payloadType, [node])) {
    const name = nodes[0].name.value;
    if (name === '__typename') {
      payload.push({ key: entryKey, value: () => payloadType.name });
      continue;
    }
    const rowType = name === plan.rowField ? getNamedType(payloadType.getFields()[name].type) : undefined;
    if (!isObjectType(rowType) || authScopesOf(rowType.extensions)) return `${payloadType.name}.${name}`;
    const fields: [string, (row: Row) => unknown][] = [];
    for (const [fieldKey, fieldNodes] of subfields(scope, rowType, nodes)) {
      const value = rowField(rowType, plan, fieldNodes);
      if (typeof value === 'string') return value;
      fields.push([fieldKey, value]);
    }
    payload.push({ key: entryKey, value: (row) => Object.fromEntries(fields.map(([k, value]) => [k, value(row)])) });
  }
  return { key, field, node, plan, payload };
}

/**
 * How a mutation operation is answered without the executor, or why it is not: one field whose
 * resolver writes one row in one statement (a writePlan extension), with a payload of that row's
 * columns only; anything else (relations, directives, several fields) runs through the executor.
 */
export function writePlanFor(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  context: Context,
  variableValues: Record<string, unknown> | null | undefined,
): (() => Promise<ExecutionResult>) | string {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'mutation') return 'not a mutation';
  // A key that may not write is refused by the executor, in its words.
  if (!context?.principal || !keyAllows(context.principal.permission, 'READ_WRITE')) return 'no write key';
  let shape = shapes.get(operation);
  if (!shape) shapes.set(operation, (shape = shapeOf(schema, document, operation)));
  if (typeof shape === 'string') return shape;
  const variables = coercedVariables(schema, operation, variableValues);
  if (variables.errors) return 'variables the executor refuses';
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(shape.field, shape.node, variables.coerced);
  } catch {
    return 'arguments the executor refuses';
  }
  const { key, field, node, plan, payload } = shape;
  return async () => {
    let row: Row;
    try {
      row = await plan.write(args, context);
    } catch (error) {
      // As the executor reports a failed root field: located at it, and null up to the nearest nullable place.
      return { errors: [locatedError(error, [node], [key])], data: isNonNullType(field.type) ? null : { [key]: null } };
    }
    return { data: { [key]: Object.fromEntries(payload.map((entry) => [entry.key, entry.value(row)])) } };
  };
}
