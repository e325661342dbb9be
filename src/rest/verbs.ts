import { lowerFirst, upperFirst } from '../schema/case.js';
import type { Group, Method, Route } from './route.js';

// The verbs of the legacy interface: each makes one kind of route, with its GraphQL operation
// spelled the same way everywhere. Mutation names follow the CRUD toolkit (src/schema/crud.ts):
// create<Type>/update<Type>/delete<Type> take `input` (`rowId` targets the row), with input types
// named after the mutation, and answer a payload whose one field is the row.

/** `Whiteboard Data Stream List` -> `WhiteboardDataStreamList`: the GraphQL operation's name. */
const operationName = (name: string) => name.replace(/[^A-Za-z0-9]+/g, '');

/** Root field arguments filled from the request, e.g. `{ rowId: { path: 'whiteboard_id', type: 'Int!' } }`. */
export type Args = Record<string, { path?: string; query?: string; type: string }>;

function variables(vars: Record<string, string>): string {
  const list = Object.entries(vars).map(([name, type]) => `$${name}: ${type}`);
  return list.length ? `(${list.join(', ')})` : '';
}

function argumentList(values: Record<string, string | undefined>): string {
  const list = Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}: ${value}`);
  return list.length ? `(${list.join(', ')})` : '';
}

function document(type: 'query' | 'mutation', name: string, vars: Record<string, string>, body: string): string {
  return `${type} ${operationName(name)}${variables(vars)} { ${body} }`;
}

/** The variables, argument values and parameter mappings of request-filled arguments (each variable is named after its argument). */
function requestArgs(args: Args = {}) {
  const entries = Object.entries(args);
  const params = (from: 'path' | 'query') =>
    Object.fromEntries(entries.filter(([, arg]) => arg[from]).map(([name, arg]) => [arg[from]!, name]));
  return {
    vars: Object.fromEntries(entries.map(([name, arg]) => [name, arg.type])),
    values: Object.fromEntries(entries.map(([name]) => [name, `$${name}`])),
    pathParams: params('path'),
    queryParams: params('query'),
  };
}

export interface ListSpec {
  /** The root connection, e.g. `whiteboards`. */
  field: string;
  /** Its node type: `<type>Filter` and `<type>OrderBy` are its argument types. */
  type: string;
  /** The legacy view of a row (views.ts). */
  select: string;
  /** A fixed condition, a `<type>Filter` literal such as `{ inTheArchive: { eq: false } }`. */
  where?: string;
  /** A fixed order, a `[<type>OrderBy!]` literal. */
  orderBy?: string;
  /** Further arguments from the request. */
  args?: Args;
  /** The connection has no `offset` argument (only the root connections of src/schema/root-fields.ts do). */
  cursorOnly?: boolean;
}

export interface RowSpec {
  /** The placeholder holding the row id. */
  param: string;
  /**
   * What the row must be for this path, else 404: its `column`, read by the query field `field`,
   * holds the id in placeholder `param` (the parent of a nested path) or equals `value`.
   */
  check?: { field: string; column: string } & ({ param: string } | { value: boolean });
}

export interface MutationSpec {
  /** The entity type; its lowerFirst is the payload's field. */
  type: string;
  select: string;
  /** When the mutation is not named by the toolkit's rule. */
  mutation?: string;
}

/** The path parameters of a route on one row, and the check of what the row must be (see RowSpec.check). */
function rowTarget(name: string, spec: RowSpec, target: string): Pick<Route, 'pathParams' | 'rowCheck'> {
  const pathParams: Record<string, string | null> = { [spec.param]: target };
  if (!spec.check) return { pathParams };
  const { field, column, ...equals } = spec.check;
  if ('param' in equals) pathParams[equals.param] = null;
  return {
    pathParams,
    rowCheck: {
      row: spec.param,
      equals,
      operation: document('query', `${name} Check`, { id: 'Int!' }, `row: ${field}(rowId: $id) { value: ${column} }`),
    },
  };
}

/** A mutation operation taking `input` (of the type named after the mutation unless `input` names another) and selecting `select` from the payload. */
const mutationDocument = (name: string, mutation: string, select: string, input = `${upperFirst(mutation)}Input!`) =>
  document('mutation', name, { input }, `${mutation}(input: $input) { ${select} }`);

/** The routes of one legacy group. */
export function verbs(group: Group) {
  const route = (
    name: string,
    method: Method,
    path: string,
    rest: Omit<Route, 'group' | 'name' | 'method' | 'path'>,
  ): Route => ({
    group,
    name,
    method,
    path,
    ...rest,
  });

  const filterArg = (spec: Pick<ListSpec, 'where'>) => (spec.where ? `{ and: [$filter, ${spec.where}] }` : '$filter');

  const page = (name: string, path: string, spec: ListSpec, filtered: boolean): Route => {
    const request = requestArgs(spec.args);
    const paging: Record<string, string> = spec.cursorOnly ? { first: 'Int' } : { first: 'Int', offset: 'Int' };
    const vars = filtered
      ? { ...paging, filter: `${spec.type}Filter = {}`, orderBy: `[${spec.type}OrderBy!]` }
      : paging;
    const values = {
      ...request.values,
      ...Object.fromEntries(Object.keys(paging).map((key) => [key, `$${key}`])),
      filter: filtered ? filterArg(spec) : spec.where,
      orderBy: filtered ? '$orderBy' : spec.orderBy,
    };
    return route(name, 'GET', path, {
      kind: filtered ? 'filter' : 'list',
      operation: document(
        'query',
        name,
        { ...request.vars, ...vars },
        `${spec.field}${argumentList(values)} { totalCount nodes { ${spec.select} } }`,
      ),
      pathParams: request.pathParams,
      queryParams: request.queryParams,
    });
  };

  /** A query field's value (an object or a list) for arguments from the request. */
  const read = (name: string, path: string, spec: { field: string; select: string; args?: Args }): Route => {
    const request = requestArgs(spec.args);
    return route(name, 'GET', path, {
      kind: 'object',
      operation: document(
        'query',
        name,
        request.vars,
        `${spec.field}${argumentList(request.values)} { ${spec.select} }`,
      ),
      pathParams: request.pathParams,
      queryParams: request.queryParams,
    });
  };

  return {
    list: (name: string, path: string, spec: ListSpec): Route => page(name, path, spec, false),

    filter: (name: string, path: string, spec: ListSpec): Route => page(name, path, spec, true),

    info: (name: string, path: string, spec: Pick<ListSpec, 'field' | 'type' | 'where'>): Route =>
      route(name, 'POST', path, {
        kind: 'info',
        operation: document(
          'query',
          name,
          { filter: `${spec.type}Filter = {}` },
          `${spec.field}${argumentList({ first: '0', filter: filterArg(spec) })} { totalCount }`,
        ),
      }),

    get: (name: string, path: string, spec: RowSpec & { field: string; select: string }): Route =>
      route(name, 'GET', path, {
        kind: 'object',
        operation: document('query', name, { id: 'Int!' }, `${spec.field}(rowId: $id) { ${spec.select} }`),
        ...rowTarget(name, spec, 'id'),
      }),

    read,

    /** `[{value, label}]` from a field returning [Choice!]!. */
    choices: (name: string, path: string, spec: { field: string; args?: Args }): Route =>
      read(name, path, { ...spec, select: 'value label' }),

    /** Creates a row from the body (and the path); answers 201 with it. */
    create: (name: string, path: string, spec: MutationSpec & { pathParams?: Record<string, string> }): Route => {
      const mutation = spec.mutation ?? `create${spec.type}`;
      return route(name, 'POST', path, {
        kind: 'payload',
        status: 201,
        operation: mutationDocument(name, mutation, `${lowerFirst(spec.type)} { ${spec.select} }`),
        pathParams: spec.pathParams,
        body: 'input',
      });
    },

    update: (name: string, path: string, spec: RowSpec & MutationSpec): Route => {
      const mutation = spec.mutation ?? `update${spec.type}`;
      const field = lowerFirst(spec.type);
      return route(name, 'PUT', path, {
        kind: 'payload',
        operation: mutationDocument(name, mutation, `${field} { rowId }`),
        answer: document('query', `${name} Answer`, { id: 'Int!' }, `${field}(rowId: $id) { ${spec.select} }`),
        ...rowTarget(name, spec, 'input.rowId'),
        body: 'input',
      });
    },

    /** Deletes a row; answers 204. `query` maps query parameters to further input fields (a confirmation). */
    remove: (
      name: string,
      path: string,
      spec: RowSpec & { type: string; mutation?: string; query?: Record<string, string> },
    ): Route => {
      const mutation = spec.mutation ?? `delete${spec.type}`;
      return route(name, 'DELETE', path, {
        kind: 'empty',
        status: 204,
        operation: mutationDocument(name, mutation, 'deletedRowId'),
        ...rowTarget(name, spec, 'input.rowId'),
        queryParams: spec.query,
      });
    },

    /** A mutation on one row named in the path, without a body (archive, unarchive, resend). */
    act: (
      name: string,
      method: Method,
      path: string,
      spec: { param: string; mutation: string; input?: string; result: string },
    ): Route =>
      route(name, method, path, {
        kind: 'payload',
        operation: mutationDocument(name, spec.mutation, spec.result, spec.input),
        pathParams: { [spec.param]: 'input.rowId' },
      }),

    /** A mutation whose input comes from the body (and the path); answers the payload's one field. */
    submit: (
      name: string,
      method: Method,
      path: string,
      spec: { mutation: string; result: string; pathParams?: Record<string, string>; status?: 200 | 201 },
    ): Route =>
      route(name, method, path, {
        kind: 'payload',
        status: spec.status,
        operation: mutationDocument(name, spec.mutation, spec.result),
        pathParams: spec.pathParams,
        body: 'input',
      }),

    /** Sets the order of a parent's children from the full ordered list of their ids; answers the children in order. */
    reorder: (
      name: string,
      path: string,
      spec: { mutation: string; select: string; pathParams?: Record<string, string> },
    ): Route =>
      route(name, 'PUT', path, {
        kind: 'object',
        operation: mutationDocument(name, spec.mutation, spec.select),
        pathParams: spec.pathParams,
        body: 'input',
      }),

    /** A row of another shape, written out. */
    route,
  };
}
