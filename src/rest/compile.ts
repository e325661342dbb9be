import {
  getNamedType,
  GraphQLInt,
  GraphQLString,
  isInputObjectType,
  isNonNullType,
  isObjectType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { isVersionedRow, withVersions, type VersionedOperation } from './conditionals.js';
import { filterParams, infoFields, orderingParam, type FilterFieldInfo } from './filters.js';
import { snakeCase } from './names.js';
import type { Param } from './param.js';
import { defaultLimit, maxLimit, type Route } from './route.js';

/** An operation of one root field, as a route runs it: its name, its root field and where its value is in the data. */
export interface CompiledOperation {
  document: DocumentNode;
  operationName: string;
  root: FieldNode;
  /** The root field's response key. */
  rootKey: string;
  rootField: GraphQLField<unknown, unknown> | undefined;
}

/** A route as served: its operation parsed and validated, its parameters typed from the schema. */
export interface CompiledRoute extends Route, CompiledOperation {
  /** Route.rowCheck with its query parsed and validated like the operation. */
  compiledRowCheck?: Omit<NonNullable<Route['rowCheck']>, 'operation'> & {
    document: DocumentNode;
    operationName: string;
  };
  /** Route.answer parsed and validated like the operation. */
  compiledAnswer?: CompiledOperation;
  /** For a payload, where the row is inside the root field's value. */
  payloadKey?: string;
  params: Param[];
  /** The body is a multipart form (an input with an Upload field). */
  multipart: boolean;
  /** A body must be sent (its input has required fields). */
  bodyRequired: boolean;
  /** Info routes: the filterable fields, fixed for the schema. */
  infoFields?: FilterFieldInfo[];
  /**
   * When the answered row has a version: the operation that reads it (the answer read, else the
   * route's own) with the versions its ETag is made of (conditionals.ts).
   */
  tagged?: VersionedOperation;
  /** A change (PUT, DELETE, or a POST action on one row) whose input takes an expectedVersion, which If-Match fills. */
  conditional: boolean;
  /** For a conditional route: the GET of the same row (its path), which reads the current tag when If-Match needs it. */
  tagRead?: CompiledOperation & VersionedOperation;
}

const responseKey = (field: FieldNode) => (field.alias ?? field.name).value;

function placeholders(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}

/** Parses and validates a route's operation once and derives its parameters from the schema. */
export function compileRoute(route: Route, schema: GraphQLSchema): CompiledRoute {
  const document = parse(route.operation);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const compiled = compiledOperation(document, schema);
  const definitions = new Map(
    (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]),
  );
  const variableType = (name: string) => {
    const definition = definitions.get(name);
    return definition && (typeFromAST(schema, definition.type) as GraphQLInputType | undefined);
  };
  const checkDocument = route.rowCheck && parse(route.rowCheck.operation);
  const answerDocument = route.answer ? parse(route.answer) : undefined;
  const invalid = [document, checkDocument, answerDocument].flatMap((each) =>
    each ? validate(schema, each).map((error) => error.message) : [],
  );
  // A route that cannot run is a bug of the table: the start stops rather than serve it.
  if (invalid.length)
    throw new Error(`REST route ${route.name} (${route.method} ${route.path}): ${invalid.join('; ')}`);

  const typeAt = ([variable, ...fields]: string[]): GraphQLInputType | null => {
    let type: GraphQLInputType | null = variableType(variable) ?? null;
    for (const field of fields) {
      const named = type && getNamedType(type);
      type = isInputObjectType(named) ? (named.getFields()[field]?.type ?? null) : null;
    }
    if (!type) throw new Error(`${route.name}: no variable at ${[variable, ...fields].join('.')}`);
    return type;
  };

  const params: Param[] = [];
  const names = placeholders(route.path);
  for (const name of Object.keys(route.pathParams ?? {})) {
    if (!names.includes(name)) throw new Error(`${route.name}: ${name} is not a placeholder of ${route.path}`);
  }
  for (const name of names) {
    const target = route.pathParams?.[name];
    if (target === undefined) throw new Error(`${route.name}: placeholder {${name}} goes nowhere`);
    const path = target?.split('.') ?? null;
    // The legacy's ids are integers; that also types a parent's id, which goes to no variable.
    const type = (path && typeAt(path)) ?? (name.endsWith('_id') ? GraphQLInt : GraphQLString);
    params.push({ name, in: 'path', target: path, type, required: true });
  }
  for (const [name, target] of Object.entries(route.queryParams ?? {})) {
    const path = target.split('.');
    const type = typeAt(path);
    const variableDefault = definitions.get(path[0])?.defaultValue;
    params.push({ name, in: 'query', target: path, type, required: !!type && isNonNullType(type) && !variableDefault });
  }
  if ((route.kind === 'list' || route.kind === 'filter') && definitions.has('first')) {
    params.push({
      name: 'limit',
      in: 'query',
      target: ['first'],
      type: GraphQLInt,
      required: false,
      default: defaultLimit,
      minimum: 1,
      maximum: maxLimit,
      description: 'Rows in the page.',
    });
  }
  if ((route.kind === 'list' || route.kind === 'filter') && definitions.has('offset')) {
    params.push({
      name: 'offset',
      in: 'query',
      target: ['offset'],
      type: GraphQLInt,
      required: false,
      default: 0,
      minimum: 0,
      description: 'Rows skipped before the page.',
    });
  }
  const filterType = getNamedTypeOf(variableType('filter'));
  if ((route.kind === 'filter' || route.kind === 'info') && isInputObjectType(filterType))
    params.push(...filterParams(filterType));
  const orderByType = getNamedTypeOf(variableType('orderBy'));
  if (route.kind === 'filter' && isInputObjectType(orderByType)) params.push(orderingParam(orderByType));

  let multipart = false;
  let bodyRequired = false;
  const inputType = route.body ? getNamedTypeOf(variableType(route.body)) : undefined;
  if (route.body && isInputObjectType(inputType)) {
    const filled = new Set(
      params.flatMap(({ target }) => (target && target[0] === route.body && target.length === 2 ? [target[1]] : [])),
    );
    // REST speaks row ids: a global `ID` input stays GraphQL's.
    // The version travels as If-Match, never in the legacy body.
    const fields = Object.values(inputType.getFields()).filter(
      (field) => !filled.has(field.name) && getNamedType(field.type).name !== 'ID' && field.name !== 'expectedVersion',
    );
    for (const field of fields) {
      const required = isNonNullType(field.type) && field.defaultValue === undefined;
      params.push({
        name: snakeCase(field.name),
        in: 'body',
        target: [route.body, field.name],
        type: field.type,
        required,
        description: field.description ?? undefined,
      });
      multipart ||= getNamedType(field.type).name === 'Upload';
      bodyRequired ||= required;
    }
  }

  const compiledAnswer = answerDocument && compiledOperation(answerDocument, schema);
  const payloadKey =
    route.kind === 'payload' ? responseKey(compiled.root.selectionSet!.selections[0] as FieldNode) : undefined;
  const answered = compiledAnswer ?? compiled;
  const rowType =
    payloadKey && !compiledAnswer
      ? answered.rootField && rowFieldType(answered.rootField.type, payloadKey)
      : answered.rootField?.type;
  return {
    ...route,
    ...compiled,
    compiledRowCheck: route.rowCheck &&
      checkDocument && {
        row: route.rowCheck.row,
        equals: route.rowCheck.equals,
        document: checkDocument,
        operationName: operationNameOf(checkDocument),
      },
    compiledAnswer,
    payloadKey,
    params,
    multipart,
    bodyRequired,
    infoFields: route.kind === 'info' && isInputObjectType(filterType) ? infoFields(filterType) : undefined,
    tagged: isVersionedRow(rowType) ? withVersions(answered.document, schema) : undefined,
    conditional: route.method !== 'GET' && !!inputOf(variableType)?.getFields().expectedVersion,
  };
}

/** The input object the operation takes as `input`, if any. */
function inputOf(variableType: (name: string) => GraphQLInputType | undefined) {
  const type = getNamedTypeOf(variableType('input'));
  return isInputObjectType(type) ? type : undefined;
}

/** The type of a payload's field `key`. */
function rowFieldType(type: GraphQLOutputType, key: string): GraphQLOutputType | undefined {
  const named = getNamedType(type);
  return isObjectType(named) ? named.getFields()[key]?.type : undefined;
}

/**
 * Gives each conditional route the GET of its row, whose answer's tag If-Match is compared with: at
 * the same path, or at the path of which the route is an action (`.../{id}/archive/`).
 */
export function linkTagReads(routes: CompiledRoute[]): CompiledRoute[] {
  const reads = new Map(
    routes.filter((route) => route.method === 'GET' && route.tagged).map((route) => [route.path, route]),
  );
  return routes.map((route) => {
    const read = route.conditional
      ? (reads.get(route.path) ?? reads.get(route.path.replace(/[^/]+\/$/, '')))
      : undefined;
    return read ? { ...route, tagRead: { ...read, ...read.tagged! } } : { ...route, conditional: false };
  });
}

const operationNameOf = (document: DocumentNode) => (document.definitions[0] as OperationDefinitionNode).name!.value;

function compiledOperation(document: DocumentNode, schema: GraphQLSchema): CompiledOperation {
  const operation = document.definitions[0] as OperationDefinitionNode;
  const root = operation.selectionSet.selections[0] as FieldNode;
  const rootType = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const rootField = rootType?.getFields()[root.name.value];
  return { document, operationName: operationNameOf(document), root, rootKey: responseKey(root), rootField };
}

function getNamedTypeOf(type: GraphQLInputType | null | undefined) {
  return type ? getNamedType(type) : undefined;
}
